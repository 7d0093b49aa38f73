// "Did you mean ...?" for a misspelled name: a command, a flag, a Dockerfile
// instruction, a job field, key or enum value. One rule everywhere, so a typo
// gets the same kind of suggestion whichever part of trainpkg reads it.
#ifndef TRAINPKG_BASE_CLOSEST_MATCH_H_
#define TRAINPKG_BASE_CLOSEST_MATCH_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace trainpkg::base {

// The candidate that `input` most plausibly misspells, ignoring ASCII case:
// the shortest candidate that starts with `input` (for inputs of 4 or more
// characters: a truncated name is the likeliest typo), else the nearest by
// edit distance (insertions, deletions, substitutions and swaps of two
// neighbouring characters each count 1) if within max(2, length / 3);
// nullopt when none is that close. Ties go to the earlier candidate.
std::optional<std::string_view> ClosestMatch(std::string_view input,
                                             absl::Span<const std::string_view> candidates);

// "; did you mean 'x'?" when ClosestMatch finds one, else "".
std::string DidYouMean(std::string_view input, absl::Span<const std::string_view> candidates);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_CLOSEST_MATCH_H_
