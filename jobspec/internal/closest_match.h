// "Did you mean ...?" suggestions for misspelled field names, keys and enum
// values.
#ifndef TRAINPKG_JOBSPEC_INTERNAL_CLOSEST_MATCH_H_
#define TRAINPKG_JOBSPEC_INTERNAL_CLOSEST_MATCH_H_

#include <optional>
#include <string>
#include <string_view>

#include "absl/types/span.h"

namespace trainpkg::jobspec::internal {

// The candidate that `input` most plausibly misspells, ignoring ASCII case:
// the shortest candidate that starts with `input` (for inputs of 4 or more
// characters), else the nearest by edit distance if within max(2, length/3);
// nullopt when none is that close.
std::optional<std::string_view> ClosestMatch(std::string_view input,
                                             absl::Span<const std::string_view> candidates);

// "; did you mean 'x'?" when ClosestMatch finds one, else "".
std::string DidYouMean(std::string_view input, absl::Span<const std::string_view> candidates);

}  // namespace trainpkg::jobspec::internal

#endif  // TRAINPKG_JOBSPEC_INTERNAL_CLOSEST_MATCH_H_
