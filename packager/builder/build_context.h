// The build context: the directory `trainpkg build CONTEXT` reads, walked once
// with .dockerignore applied. Everything a build copies comes from here, and
// every layer-cache key is computed from the metadata this walk records.
//
//   TP_ASSIGN_OR_RETURN(BuildContext ctx, BuildContext::Scan("/src/app", ignore));
//   const ContextFile* f = ctx.Find("trainer/main.py");
//
// Immutable after Scan(); const methods are thread-safe.
#ifndef TRAINPKG_PACKAGER_BUILDER_BUILD_CONTEXT_H_
#define TRAINPKG_PACKAGER_BUILDER_BUILD_CONTEXT_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/dockerfile/dockerignore.h"

namespace trainpkg::packager::builder {

// One path of the context that .dockerignore keeps, from lstat(2).
struct ContextFile {
  enum class Type { kFile, kDirectory, kSymlink, kOther };
  std::string rel;  // slash-separated, relative to the root, no leading "./"
  Type type = Type::kFile;
  int64_t size = 0;
  int64_t mtime_sec = 0;
  int64_t mtime_nsec = 0;
  uint64_t device = 0;
  uint64_t inode = 0;
  uint64_t links = 1;
  uint32_t mode = 0;  // st_mode
};

class BuildContext {
 public:
  // Walks `root` (which must be a directory), skipping what `ignore` excludes
  // (descending into excluded directories only where DockerIgnore::MustWalk
  // says a `!` pattern may re-include something). Symlinks are recorded,
  // never followed. NotFound / errno-derived errors name the path.
  static absl::StatusOr<BuildContext> Scan(const std::filesystem::path& root,
                                           const dockerfile::DockerIgnore& ignore);

  // The canonical absolute root.
  const std::filesystem::path& root() const { return root_; }
  // Kept paths, sorted by `rel` (byte order), the root itself excluded.
  const std::vector<ContextFile>& files() const { return files_; }
  // The kept path `rel` ("" or "." is never found), or null.
  const ContextFile* Find(std::string_view rel) const;
  // Kept paths strictly beneath the directory `rel` ("." = everything).
  std::vector<const ContextFile*> Beneath(std::string_view rel) const;
  // Whether .dockerignore left out anything beneath `rel` ("." = anywhere).
  bool HasExclusionsBeneath(std::string_view rel) const;

 private:
  std::filesystem::path root_;
  std::vector<ContextFile> files_;
  std::vector<std::string> excluded_;  // sorted rel paths left out (dirs: their top only)
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_BUILD_CONTEXT_H_
