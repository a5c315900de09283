// The floor the engine is measured against: the benchmark scenario hand-written as one plain loop.
// Same random stream as the engine (chunks of 4096 runs, xoshiro256** per chunk seeded through
// SplitMix64, uniforms (x >> 11) * 2^-53, ten draws per run in order v0..v9), the same formula, then
// the mean and exact type-7 p5/p50/p95 by nth_element.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "../../native/common/rng.hpp"

int main(int argc, char** argv) {
  const size_t runs = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1000000;
  const uint64_t seed = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 42;
  const auto t0 = std::chrono::steady_clock::now();
  std::vector<double> y(runs);
  double sum = 0;
  for (size_t c = 0; c * 4096 < runs; ++c) {
    ds::rng::Xoshiro256ss g = ds::rng::Xoshiro256ss::for_chunk(seed, c);
    const size_t end = std::min(runs, (c + 1) * 4096);
    for (size_t i = c * 4096; i < end; ++i) {
      double v[10];
      for (double& x : v) x = ds::rng::to_unit(g.next());
      const double val = v[0] * v[1] - v[2] + v[3] * v[4] - v[5] + v[6] * v[7] - v[8] + v[9];
      y[i] = val;
      sum += val;
    }
  }
  double q[3];
  const double ps[3] = {0.05, 0.5, 0.95};
  for (int j = 0; j < 3; ++j) {
    const double h = static_cast<double>(runs - 1) * ps[j];
    const size_t k = static_cast<size_t>(h);
    std::nth_element(y.begin(), y.begin() + static_cast<long>(k), y.end());
    q[j] = y[k];
    if (k + 1 < runs) q[j] += (h - static_cast<double>(k)) * (*std::min_element(y.begin() + static_cast<long>(k) + 1, y.end()) - y[k]);
  }
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  std::printf("{\"mean\":%.17g,\"p5\":%.17g,\"p50\":%.17g,\"p95\":%.17g,\"compute_ms\":%.3f}\n", sum / static_cast<double>(runs), q[0],
              q[1], q[2], ms);
  return 0;
}
