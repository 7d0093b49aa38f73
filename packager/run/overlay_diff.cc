#include "packager/run/overlay_diff.h"

#include <errno.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <string>
#include <vector>

#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::packager::run {
namespace {

namespace fs = std::filesystem;

bool IsOpaqueDir(const fs::path& dir) {
  char value[2] = {0, 0};
  ssize_t n = ::lgetxattr(dir.c_str(), "trusted.overlay.opaque", value, sizeof(value));
  return n == 1 && value[0] == 'y';
}

}  // namespace

absl::StatusOr<LayerSource> OverlayDiff(const fs::path& upper) {
  std::vector<LayerEntry> markers;
  std::vector<fs::path> whiteouts;
  std::error_code ec;
  fs::recursive_directory_iterator it(upper, ec);
  for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
    const fs::path& path = it->path();
    const std::string image_path = "/" + path.lexically_relative(upper).generic_string();
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) {
      return base::ErrnoToStatus(errno, fmt::format("stat {}", path.string()));
    }
    // overlayfs marks a deleted lower file with a 0/0 character device and a
    // directory whose lower contents are hidden with trusted.overlay.opaque;
    // the layer says the same with ".wh." and ".wh..wh..opq" entries.
    if (S_ISCHR(st.st_mode) && major(st.st_rdev) == 0 && minor(st.st_rdev) == 0) {
      whiteouts.push_back(path);
      markers.push_back(LayerEntry::Whiteout(image_path));
    } else if (S_ISDIR(st.st_mode)) {
      if (IsOpaqueDir(path)) markers.push_back(LayerEntry::OpaqueWhiteout(image_path));
    } else if (!S_ISREG(st.st_mode) && !S_ISLNK(st.st_mode)) {
      return absl::InvalidArgumentError(
          fmt::format("the command created {}, a device, FIFO or socket; a layer holds files, "
                      "directories and links only",
                      image_path));
    }
  }
  if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("walking {}", upper.string()));
  // The device nodes go before the copy: a layer holds no devices.
  for (const fs::path& path : whiteouts) {
    if (::unlink(path.c_str()) != 0) {
      return base::ErrnoToStatus(errno, fmt::format("removing {}", path.string()));
    }
  }
  LayerSource source{upper, {}};
  source.entries.push_back(
      // Attributes as the command left them: a RUN that chmods or chowns a file
      // means it.
      LayerEntry::Copy(".", "/", EntryOverrides{.owner = {}, .mode = {}, .keep_attributes = true}));
  source.entries.insert(source.entries.end(), markers.begin(), markers.end());
  return source;
}

}  // namespace trainpkg::packager::run
