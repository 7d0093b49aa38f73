// Lexical path rules of a layer: normalisation and the entry order.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_IMAGE_PATH_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_IMAGE_PATH_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::packager::layer_internal {

inline constexpr std::string_view kWhiteoutPrefix = ".wh.";
inline constexpr std::string_view kOpaqueWhiteout = ".wh..wh..opq";

// "/usr//lib/./x/../y/" -> "usr/lib/y"; "/" and "." -> "" (the root). A
// leading '/' is dropped: the path is relative to a root either way. A ".."
// that climbs above the root is InvalidArgument "<what> "<path>" escapes
// <root_name>".
absl::StatusOr<std::string> NormalizeRelativePath(std::string_view path, std::string_view what,
                                                  std::string_view root_name);

// The order of entries in a layer: component by component, so a directory
// comes right before its contents; among siblings the opaque whiteout first,
// then whiteouts (image-spec: whiteouts before sibling directories), then the
// rest by bytes (locale independent).
bool ImagePathLess(std::string_view a, std::string_view b);

struct ImagePathOrder {
  bool operator()(const std::string& a, const std::string& b) const { return ImagePathLess(a, b); }
};

// The last component ("a/b" -> "b"); the parent ("a/b" -> "a", "b" -> "").
std::string_view BaseName(std::string_view path);
std::string_view ParentPath(std::string_view path);

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_IMAGE_PATH_H_
