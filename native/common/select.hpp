// Exact percentiles by selection (no full sort), shared by the engine and the runtime's stats.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

namespace ds::select {

// Places the order statistics ks (ascending, distinct, inside [lo, hi)) at their sorted positions.
// Recursing on the middle key keeps the total work near one nth_element over the whole range.
inline void multiselect(double* a, size_t lo, size_t hi, const size_t* ks, size_t nk) {
  while (nk > 0 && hi - lo > 1) {
    const size_t m = nk / 2;
    const size_t k = ks[m];
    if (k == lo) {
      std::iter_swap(a + lo, std::min_element(a + lo, a + hi));
    } else if (k == hi - 1) {
      std::iter_swap(a + hi - 1, std::max_element(a + lo, a + hi));
    } else {
      std::nth_element(a + lo, a + k, a + hi);
    }
    multiselect(a, lo, k, ks, m);
    lo = k + 1;
    ks += m + 1;
    nk -= m + 1;
  }
}

// Type-7 (linear interpolation between order statistics) quantiles for probabilities ps in [0, 1]:
// h = (n - 1) p, q = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
// Reorders `a`; its values must not contain NaN. n must be >= 1.
inline std::vector<double> quantiles_type7(double* a, size_t n, const std::vector<double>& ps) {
  std::vector<size_t> ks;
  std::vector<double> hs;
  for (double p : ps) {
    const double h = static_cast<double>(n - 1) * p;
    size_t k = static_cast<size_t>(std::floor(h));
    if (k > n - 1) k = n - 1;
    hs.push_back(h);
    ks.push_back(k);
    if (k + 1 < n) ks.push_back(k + 1);
  }
  std::sort(ks.begin(), ks.end());
  ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
  multiselect(a, 0, n, ks.data(), ks.size());
  std::vector<double> out;
  for (double h : hs) {
    size_t k = static_cast<size_t>(std::floor(h));
    if (k > n - 1) k = n - 1;
    const double frac = h - static_cast<double>(k);
    if (frac == 0.0 || k + 1 >= n)
      out.push_back(a[k]);
    else
      out.push_back(a[k] + frac * (a[k + 1] - a[k]));
  }
  return out;
}

}  // namespace ds::select
