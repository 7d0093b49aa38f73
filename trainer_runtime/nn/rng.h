// The random numbers nn uses (initialisers, dropout), the same on every
// machine and standard library: std::mt19937_64 (its output sequence is fixed
// by the C++ standard) seeded with the 64-bit seed, and our own mapping to
// floats, since std::uniform_real_distribution differs between libraries:
//   Uniform01() = (next() >> 40) * 2^-24, exactly representable, in [0, 1)
//   Uniform(lo, hi) = lo + (hi - lo) * Uniform01()   (computed in float)
// State() / RestoreState() capture and restore the generator exactly (for
// checkpoints), as the numbers of the engine's textual representation.
// Not thread-safe; give each thread its own Rng.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_RNG_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_RNG_H_

#include <cstdint>
#include <random>
#include <span>
#include <vector>

namespace trainpkg::nn {

class Rng {
 public:
  explicit Rng(uint64_t seed) : engine_(seed) {}

  // The next raw 64-bit value of mt19937_64.
  uint64_t Next() { return engine_(); }
  // Uniform in [0, 1) with 24 random bits (every float32 step of 2^-24).
  float Uniform01() { return static_cast<float>(engine_() >> 40) * 0x1p-24f; }
  // Uniform in [lo, hi). REQUIRES: lo <= hi.
  float Uniform(float lo, float hi) { return lo + (hi - lo) * Uniform01(); }

  // The engine's full state: the numbers of its textual representation
  // (operator<<), 313 with libstdc++ (312 words and the position). An Rng
  // restored from it continues with the same numbers as this one.
  std::vector<uint64_t> State() const;
  // Continues from a state State() returned. False, with the Rng unchanged,
  // when `state` is not one (wrong count or values the engine rejects).
  bool RestoreState(std::span<const uint64_t> state);

 private:
  std::mt19937_64 engine_;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_RNG_H_
