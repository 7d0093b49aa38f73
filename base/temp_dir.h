// A private temporary directory, removed with everything in it when the
// object goes away.
//
//   TP_ASSIGN_OR_RETURN(base::TempDir staging, base::TempDir::Create("trainpkg-bundle"));
//   WriteStuff(staging.path() / "x");
//
// Created mode 0700 by mkdtemp(3), under `parent` or, when that is empty,
// under $TMPDIR (else /tmp).
#ifndef TRAINPKG_BASE_TEMP_DIR_H_
#define TRAINPKG_BASE_TEMP_DIR_H_

#include <filesystem>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::base {

class TempDir {
 public:
  // `prefix` names the directory: <parent>/<prefix>-XXXXXX. A missing
  // `parent` is created.
  static absl::StatusOr<TempDir> Create(std::string_view prefix,
                                        const std::filesystem::path& parent = {});

  TempDir(TempDir&& other) noexcept;
  TempDir& operator=(TempDir&&) = delete;
  TempDir(const TempDir&) = delete;
  ~TempDir();

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit TempDir(std::filesystem::path path) : path_(std::move(path)) {}
  std::filesystem::path path_;
};

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_TEMP_DIR_H_
