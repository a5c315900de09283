// xoshiro256** (Blackman & Vigna) seeded through SplitMix64.
//
// Stream of chunk c for a run seeded with `seed`: the SplitMix64 generator started at state `seed`
// yields outputs o_0, o_1, ...; chunk c's xoshiro state is (o_4c, o_4c+1, o_4c+2, o_4c+3). SplitMix64
// is a counter, so o_k is computed directly without stepping through earlier chunks.
#pragma once

#include <cstdint>

namespace ds::rng {

constexpr uint64_t kGolden = 0x9E3779B97F4A7C15ULL;

inline uint64_t splitmix_mix(uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

// k-th output (0-based) of SplitMix64 started at `state`.
inline uint64_t splitmix_at(uint64_t state, uint64_t k) { return splitmix_mix(state + (k + 1) * kGolden); }

struct Xoshiro256ss {
  uint64_t s[4];

  static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

  uint64_t next() {
    const uint64_t result = rotl(s[1] * 5, 7) * 9;
    const uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
  }

  static Xoshiro256ss for_chunk(uint64_t seed, uint64_t chunk) {
    Xoshiro256ss g;
    for (uint64_t i = 0; i < 4; ++i) g.s[i] = splitmix_at(seed, 4 * chunk + i);
    // An all-zero state would be a fixed point; SplitMix64 never gives four zeros in a row in
    // practice, but the guard costs nothing.
    if ((g.s[0] | g.s[1] | g.s[2] | g.s[3]) == 0) g.s[0] = kGolden;
    return g;
  }
};

// Uniform in [0, 1): the top 53 bits scaled by 2^-53.
inline double to_unit(uint64_t x) { return static_cast<double>(x >> 11) * 0x1.0p-53; }

// Open-interval version of a [0,1) uniform for transforms that diverge at 0 or 1 (normal,
// lognormal): the same draw with its last bit dropped and centred, ((x >> 12) + 0.5) * 2^-52,
// which lies in [2^-53, 1 - 2^-53] and is exact in double precision.
inline double open_unit(double u) {
  double k = static_cast<double>(static_cast<uint64_t>(u * 0x1.0p52));
  return (k + 0.5) * 0x1.0p-52;
}

}  // namespace ds::rng
