// What a fuzz target's replay binary tells the shared replay driver
// (replay_driver.cc): the grammar pieces its mutations insert, and the
// largest input it feeds the target. Each replay binary defines Dictionary()
// once, in a <target>_dictionary.cc beside its fuzz targets.
#ifndef TRAINPKG_TESTS_FUZZ_FUZZ_DICTIONARY_H_
#define TRAINPKG_TESTS_FUZZ_FUZZ_DICTIONARY_H_

#include <cstddef>
#include <span>

namespace trainpkg::fuzz {

struct FuzzDictionary {
  std::span<const char* const> tokens;  // REQUIRES: not empty
  size_t max_input;                     // mutated inputs are cut to this size
};

const FuzzDictionary& Dictionary();

}  // namespace trainpkg::fuzz

#endif  // TRAINPKG_TESTS_FUZZ_FUZZ_DICTIONARY_H_
