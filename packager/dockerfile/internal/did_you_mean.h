// "did you mean X?" for misspelled instruction and flag names.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_DID_YOU_MEAN_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_DID_YOU_MEAN_H_

#include <string>
#include <string_view>
#include <vector>

namespace trainpkg::packager::dockerfile::internal {

// The candidate nearest to `input` by case-insensitive edit distance, if it is
// within max(2, length/3); "" when none is that close.
std::string ClosestMatch(std::string_view input, const std::vector<std::string_view>& candidates);

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_DID_YOU_MEAN_H_
