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
    const size_t ng = groups.size();
    std::vector<double> lo(ng), hi(ng);
    std::vector<size_t> below(ng, 0);
    std::vector<std::vector<double>> bucket(ng);
    for (size_t g = 0; g < ng; ++g) {
      const double q = static_cast<double>(ks[groups[g].first]) / static_cast<double>(n - 1);
      const double r = q * (kSample - 1);
      // Four and a half standard deviations of the sample rank, plus slack: a miss (about 1 in
      // 150000) only costs the fallback.
      const double delta = 4.5 * std::sqrt(kSample * q * (1 - q)) + 16.0 + static_cast<double>(groups[g].second);
      lo[g] = r - delta <= 0 ? -HUGE_VAL : sample[static_cast<size_t>(r - delta)];
      hi[g] = r + delta >= kSample - 1 ? HUGE_VAL : sample[static_cast<size_t>(r + delta)];
      bucket[g].reserve(static_cast<size_t>(static_cast<double>(n) * (2 * delta + 2) / kSample) + 64);
    }
    for (size_t i = 0; i < n; ++i) {
      const double x = a[i];
      for (size_t g = 0; g < ng; ++g) {
        // Counting without a branch: x < lo is unpredictable near the median.
        below[g] += x < lo[g] ? 1 : 0;
        if ((x >= lo[g]) & (x <= hi[g])) bucket[g].push_back(x);
      }
    }
    bool all = true;
    for (size_t g = 0; g < ng && all; ++g) {
      std::vector<double>& b = bucket[g];
      const size_t first = ks[groups[g].first], count = groups[g].second;
      if (first < below[g] || first - below[g] + count > b.size()) {
        all = false;
        break;
      }
      const size_t r = first - below[g];
      std::nth_element(b.begin(), b.begin() + static_cast<long>(r), b.end());
      for (size_t t = 1; t < count; ++t)
        std::iter_swap(b.begin() + static_cast<long>(r + t), std::min_element(b.begin() + static_cast<long>(r + t), b.end()));
      for (size_t t = 0; t < count; ++t) out[groups[g].first + t] = b[r + t];
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
