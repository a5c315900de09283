// Exact percentiles by selection (no full sort), shared by the engine and the runtime's stats.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <memory>
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

// Order statistics (0-based ranks ks: ascending, distinct) of a[0..n) by sample-guided selection
// (Floyd-Rivest style): a strided sample brackets each rank between two sample values, one pass
// counts the elements below each bracket and copies those inside it, and nth_element finishes on
// the small bracket. Exact for any data: a bracket that misses its rank falls back to multiselect.
inline std::vector<double> order_statistics(double* a, size_t n, const std::vector<size_t>& ks) {
  std::vector<double> out(ks.size());
  constexpr size_t kSample = 16384;
  // Runs of consecutive ranks (k, k+1 of an interpolated percentile) share one bracket.
  std::vector<std::pair<size_t, size_t>> groups;  // (first index into ks, count)
  for (size_t j = 0; j < ks.size(); ++j) {
    if (!groups.empty() && ks[j] == ks[j - 1] + 1)
      ++groups.back().second;
    else
      groups.push_back({j, 1});
  }
  if (n >= 8 * kSample && groups.size() <= 8) {
    std::vector<double> sample(kSample);
    const size_t stride = n / kSample;
    for (size_t i = 0; i < kSample; ++i) sample[i] = a[i * stride];
    std::sort(sample.begin(), sample.end());
    bool all = true;
    for (size_t g = 0; g < groups.size() && all; ++g) {
      const size_t first = ks[groups[g].first], count = groups[g].second;
      const double q = static_cast<double>(first) / static_cast<double>(n - 1);
      const double r = q * (kSample - 1);
      // Four and a half standard deviations of the sample rank, plus slack: a miss (about 1 in
      // 150000) only costs the fallback.
      const double delta = 4.5 * std::sqrt(kSample * q * (1 - q)) + 16.0 + static_cast<double>(count);
      const double lo = r - delta <= 0 ? -HUGE_VAL : sample[static_cast<size_t>(r - delta)];
      const double hi = r + delta >= kSample - 1 ? HUGE_VAL : sample[static_cast<size_t>(r + delta)];
      // Capacity: twice the expected bracket size; overflowing it (ties, skew) means fallback.
      const size_t cap = std::min(n, static_cast<size_t>(2.0 * static_cast<double>(n) * (2 * delta + 2) / kSample) + 1024);
      std::unique_ptr<double[]> buf(new double[cap + 1]);  // uninitialised: only touched pages cost
      double* b = buf.get();
      size_t below = 0, m = 0;
      // Branch-free pass: the comparisons near the median are unpredictable. Every value is written
      // at b[m] and kept only when inside [lo, hi].
      for (size_t i = 0; i < n; ++i) {
        const double x = a[i];
        below += x < lo ? 1 : 0;
        b[m] = x;
        m += static_cast<size_t>(x >= lo) & static_cast<size_t>(x <= hi);
        if (m == cap) break;
      }
      if (m == cap || first < below || first - below + count > m) {
        all = false;
        break;
      }
      const size_t rr = first - below;
      std::nth_element(b, b + rr, b + m);
      for (size_t t = 1; t < count; ++t) std::iter_swap(b + rr + t, std::min_element(b + rr + t, b + m));
      for (size_t t = 0; t < count; ++t) out[groups[g].first + t] = b[rr + t];
    }
    if (all) return out;
  }
  multiselect(a, 0, n, ks.data(), ks.size());
  for (size_t j = 0; j < ks.size(); ++j) out[j] = a[ks[j]];
  return out;
}

// Type-7 (linear interpolation between order statistics) quantiles for probabilities ps in [0, 1]:
// h = (n - 1) p, q = x[floor h] + (h - floor h) (x[floor h + 1] - x[floor h]).
// May reorder `a`; its values must not contain NaN. n must be >= 1.
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
  const std::vector<double> v = order_statistics(a, n, ks);
  auto at = [&](size_t k) { return v[static_cast<size_t>(std::lower_bound(ks.begin(), ks.end(), k) - ks.begin())]; };
  std::vector<double> out;
  for (double h : hs) {
    size_t k = static_cast<size_t>(std::floor(h));
    if (k > n - 1) k = n - 1;
    const double frac = h - static_cast<double>(k);
    if (frac == 0.0 || k + 1 >= n)
      out.push_back(at(k));
    else
      out.push_back(at(k) + frac * (at(k + 1) - at(k)));
  }
  return out;
}

}  // namespace ds::select
