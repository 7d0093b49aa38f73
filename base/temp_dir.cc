#include "base/temp_dir.h"

#include <stdlib.h>

#include <cerrno>
#include <string>
#include <utility>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::base {

namespace fs = std::filesystem;

absl::StatusOr<TempDir> TempDir::Create(std::string_view prefix, const fs::path& parent) {
  std::error_code ec;
  fs::path dir = parent;
  if (dir.empty()) {
    dir = fs::temp_directory_path(ec);
    if (ec) return ErrnoToStatus(ec.value(), "finding the temp directory");
  } else {
    fs::create_directories(dir, ec);
    if (ec) return ErrnoToStatus(ec.value(), fmt::format("creating {}", dir.string()));
  }
  std::string pattern = (dir / fmt::format("{}-XXXXXX", prefix)).string();
  if (::mkdtemp(pattern.data()) == nullptr) {
    return ErrnoToStatus(errno, fmt::format("creating {}", pattern));
  }
  return TempDir(fs::path(pattern));
}

TempDir::TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}

TempDir::~TempDir() {
  std::error_code ec;
  if (!path_.empty()) fs::remove_all(path_, ec);
}

}  // namespace trainpkg::base
