// The random engine of one Suggest call: seeded from the suggester's seed and
// the length of the history, so suggestions depend only on (seed, history)
// and not on how many calls came before.
#ifndef TRAINPKG_SDK_HPTUNE_INTERNAL_CALL_RNG_H_
#define TRAINPKG_SDK_HPTUNE_INTERNAL_CALL_RNG_H_

#include <cstdint>
#include <random>

namespace trainpkg::sdk::hptune::internal {

inline std::mt19937_64 CallRng(uint64_t seed, size_t history_size) {
  std::seed_seq sequence{static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
                         static_cast<uint32_t>(history_size)};
  return std::mt19937_64(sequence);
}

}  // namespace trainpkg::sdk::hptune::internal

#endif  // TRAINPKG_SDK_HPTUNE_INTERNAL_CALL_RNG_H_
