// Where a resolved closure goes in the image, as layers ordered by how often
// they change (each one a reproducible packager/layer tar):
//
//   1. "etc"     the minimal /etc (etc_files.h) and /tmp (1777);
//   2. "system"  Debian's libraries: objects whose file lies under /lib*,
//                /usr/lib* (never /usr/local). They keep their host paths,
//                and every symlink met resolving them is kept too
//                (/lib64 -> usr/lib64, libfoo.so.1 -> libfoo.so.1.2.3), so the
//                loader finds them in the image as it did on the host; the
//                interpreter (PT_INTERP) is one of them on Debian;
//   3. "project" every other library, by its DT_NEEDED name, in /usr/lib (a
//                default directory of the loader, so no ld.so.cache and no
//                LD_LIBRARY_PATH are needed; a same-directory symlink chain
//                is kept); omitted when there are none;
//   4. "binary"  the executable at /usr/local/bin/NAME.
// A system library the image's loader would not find by itself (found via
// ld.so.conf, LD_LIBRARY_PATH or an $ORIGIN element) also gets a symlink
// NAME in the first default directory. No ld.so.cache is written.
//
// Errors: InvalidArgument when two different files would land on one image
// path (naming both).
#ifndef TRAINPKG_PACKAGER_BUNDLE_BUNDLE_LAYERS_H_
#define TRAINPKG_PACKAGER_BUNDLE_BUNDLE_LAYERS_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/bundle/library_resolver.h"
#include "packager/layer/layer_entry.h"

namespace trainpkg::packager::bundle {

inline constexpr char kBundleBinaryDir[] = "/usr/local/bin";
inline constexpr char kBundleProjectLibDir[] = "/usr/lib";

struct BundleLayer {
  std::string name;    // "etc", "system", "project", "binary"
  LayerSource source;  // root: the loader root, or `etc_dir` for "etc"
  int files = 0;       // regular files in it
};

// True for paths under Debian's library directories (/lib, /lib32, /lib64,
// /libx32, /usr/lib, /usr/lib32, /usr/lib64, /usr/libx32).
bool IsSystemLibraryPath(const std::string& path);

// The layers for `closure`; `etc_dir` holds what WriteEtcFiles wrote.
absl::StatusOr<std::vector<BundleLayer>> PlanBundleLayers(const Closure& closure,
                                                          const LoaderConfig& config,
                                                          const std::filesystem::path& etc_dir);

// The entrypoint: /usr/local/bin/NAME.
std::string BundleBinaryPath(const Closure& closure);

}  // namespace trainpkg::packager::bundle

#endif  // TRAINPKG_PACKAGER_BUNDLE_BUNDLE_LAYERS_H_
