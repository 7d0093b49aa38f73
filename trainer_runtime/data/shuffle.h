// Seeded shuffling that gives the same order on every machine and standard
// library. The generator is nn::Rng (std::mt19937_64, whose output sequence
// the C++ standard fixes); the mapping to a bounded integer is ours, since
// std::uniform_int_distribution differs between libraries:
//   UniformBelow(rng, n): draw r = rng.Next(); while r >= 2^64 - (2^64 mod n)
//   draw again; return r mod n.   (unbiased rejection sampling)
// The shuffle is Fisher–Yates from the back: for i = n-1 down to 1,
// swap(a[i], a[UniformBelow(rng, i + 1)]).
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_SHUFFLE_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_SHUFFLE_H_

#include <cstdint>
#include <span>
#include <vector>

#include "trainer_runtime/nn/rng.h"

namespace trainpkg::data {

// Uniform in [0, n). REQUIRES: n >= 1.
uint64_t UniformBelow(nn::Rng& rng, uint64_t n);

// Permutes `values` with Fisher–Yates driven by nn::Rng(seed).
void ShuffleInPlace(std::span<int64_t> values, uint64_t seed);

// A permutation of 0..n-1: ShuffleInPlace of the identity. REQUIRES: n >= 0.
std::vector<int64_t> ShuffledIndices(int64_t n, uint64_t seed);

// The seed of epoch `epoch` of a pipeline seeded with `seed`:
// seed + 0x9E3779B97F4A7C15 * (epoch + 1) (mod 2^64), so every epoch has its
// own order and a restarted job can recreate any epoch's order alone.
uint64_t EpochSeed(uint64_t seed, int64_t epoch);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_SHUFFLE_H_
