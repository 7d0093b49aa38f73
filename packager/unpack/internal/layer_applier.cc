#include "packager/unpack/internal/layer_applier.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::unpack::internal {
namespace {

constexpr std::string_view kWhiteoutPrefix = ".wh.";
constexpr std::string_view kOpaqueMarker = ".wh..wh..opq";

std::string ArchiveError(struct archive* a) {
  const char* text = ::archive_error_string(a);
  return text != nullptr ? text : "unknown libarchive error";
}

std::string Child(const std::string& dir_path, const std::string& name) {
  return dir_path == "." ? name : dir_path + "/" + name;
}

struct timespec MtimeOf(struct archive_entry* entry) {
  struct timespec ts {};
  ts.tv_sec = ::archive_entry_mtime(entry);
  ts.tv_nsec = ::archive_entry_mtime_nsec(entry);
  return ts;
}

// Removes whatever `name` is, unless it is a directory and `keep_dir`.
absl::Status ClearForEntry(int parent_fd, const std::string& name, bool keep_dir) {
  TP_ASSIGN_OR_RETURN(std::optional<struct stat> st, RootDir::Lstat(parent_fd, name));
  if (!st.has_value()) return absl::OkStatus();
  if (keep_dir && S_ISDIR(st->st_mode)) return absl::OkStatus();
  return RootDir::RemoveAll(parent_fd, name);
}

}  // namespace

absl::Status LayerApplier::Apply(struct archive* tar, struct archive_entry* entry) {
  const char* pathname = ::archive_entry_pathname(entry);
  TP_ASSIGN_OR_RETURN(Components path, SplitEntryPath(pathname == nullptr ? "" : pathname));
  if (path.empty()) return absl::OkStatus();  // "./": the root keeps its own attributes
  const std::string name = path.back();
  Components parent(path.begin(), path.end() - 1);
  if (name == kOpaqueMarker) return Opaque(parent);
  if (name.rfind(kWhiteoutPrefix, 0) == 0) {
    std::string hidden = name.substr(kWhiteoutPrefix.size());
    if (hidden.empty() || hidden == "." || hidden == "..") {
      return absl::InvalidArgumentError("whiteout without a name to delete");
    }
    return Whiteout(parent, hidden);
  }
  TP_ASSIGN_OR_RETURN(base::UniqueFd parent_fd, root_.OpenDir(parent, /*create=*/true));
  for (size_t i = 1; i <= parent.size(); ++i) {
    written_.insert(JoinComponents(std::span(parent).first(i)));
  }
  written_.insert(JoinComponents(path));
  if (const char* target = ::archive_entry_hardlink(entry); target != nullptr) {
    return WriteHardlink(parent_fd.get(), name, target);
  }
  switch (::archive_entry_filetype(entry)) {
    case AE_IFREG:
      return WriteRegular(tar, parent_fd.get(), name, entry);
    case AE_IFDIR:
      return WriteDirectory(parent_fd.get(), name, entry);
    case AE_IFLNK:
      return WriteSymlink(parent_fd.get(), name, entry);
    case AE_IFCHR:
    case AE_IFBLK:
      return absl::InvalidArgumentError(
          "device nodes are refused in image layers (runc provides /dev)");
    case AE_IFIFO:
      return absl::InvalidArgumentError("FIFOs are refused in image layers");
    default:
      return absl::InvalidArgumentError(
          fmt::format("unsupported entry type {:o}", ::archive_entry_filetype(entry)));
  }
}

absl::Status LayerApplier::Whiteout(const Components& parent, const std::string& name) {
  Components path = parent;
  path.push_back(name);
  // The image spec: a whiteout applies only to the lower layers; what this
  // layer itself wrote under that name stays.
  if (written_.contains(JoinComponents(path))) return absl::OkStatus();
  absl::StatusOr<base::UniqueFd> parent_fd = root_.OpenDir(parent, /*create=*/false);
  if (absl::IsNotFound(parent_fd.status())) return absl::OkStatus();  // nothing to hide
  if (!parent_fd.ok()) return parent_fd.status();
  return RootDir::RemoveAll(parent_fd->get(), name);
}

absl::Status LayerApplier::Opaque(const Components& dir) {
  TP_ASSIGN_OR_RETURN(base::UniqueFd dir_fd, root_.OpenDir(dir, /*create=*/true));
  for (size_t i = 1; i <= dir.size(); ++i) written_.insert(JoinComponents(std::span(dir).first(i)));
  // The spec applies the marker as if it came first, wherever it stands in
  // the layer: this layer's own entries in the directory are kept, and only
  // what the lower layers left is removed.
  return RemoveLowerChildren(dir_fd.get(), JoinComponents(dir));
}

absl::Status LayerApplier::RemoveLowerChildren(int dir_fd, const std::string& dir_path) {
  TP_ASSIGN_OR_RETURN(std::vector<std::string> children, RootDir::ListChildren(dir_fd));
  for (const std::string& child : children) {
    const std::string child_path = Child(dir_path, child);
    if (!written_.contains(child_path)) {
      TP_RETURN_IF_ERROR(RootDir::RemoveAll(dir_fd, child));
      continue;
    }
    TP_ASSIGN_OR_RETURN(std::optional<struct stat> st, RootDir::Lstat(dir_fd, child));
    if (!st.has_value() || !S_ISDIR(st->st_mode)) continue;
    int fd = ::openat(dir_fd, child.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", child_path));
    base::UniqueFd child_fd(fd);
    TP_RETURN_IF_ERROR(RemoveLowerChildren(child_fd.get(), child_path));
  }
  return absl::OkStatus();
}

absl::Status LayerApplier::WriteRegular(struct archive* tar, int parent_fd, const std::string& name,
                                        struct archive_entry* entry) {
  // Whatever a lower layer left at the name goes first, and the file is made
  // O_EXCL | O_NOFOLLOW: data is never written through a symlink a layer
  // planted there, which could point outside the root.
  TP_RETURN_IF_ERROR(ClearForEntry(parent_fd, name, /*keep_dir=*/false));
  int fd =
      ::openat(parent_fd, name.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return base::ErrnoToStatus(errno, "creating the file");
  base::UniqueFd file(fd);
  const void* block = nullptr;
  size_t size = 0;
  la_int64_t offset = 0;
  for (;;) {
    int r = ::archive_read_data_block(tar, &block, &size, &offset);
    if (r == ARCHIVE_EOF) break;
    if (r != ARCHIVE_OK) return absl::DataLossError(ArchiveError(tar));
    const char* data = static_cast<const char*>(block);
    size_t done = 0;
    while (done < size) {
      // At the block's offset: libarchive skips the holes of a sparse file, and
      // they stay holes here.
      ssize_t n = ::pwrite(file.get(), data + done, size - done, offset + done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return base::ErrnoToStatus(errno, "writing the file");
      done += static_cast<size_t>(n);
    }
  }
  // The declared size, so a sparse file that ends in a hole is not cut short.
  if (::ftruncate(file.get(), ::archive_entry_size(entry)) != 0) {
    return base::ErrnoToStatus(errno, "sizing the file");
  }
  if (options_.preserve_ownership &&
      ::fchown(file.get(), ::archive_entry_uid(entry), ::archive_entry_gid(entry)) != 0) {
    return base::ErrnoToStatus(errno, "chown");
  }
  // After chown, which clears set-id bits.
  mode_t mode = ::archive_entry_perm(entry);
  if (options_.clear_set_id_bits) mode &= ~static_cast<mode_t>(S_ISUID | S_ISGID);
  if (::fchmod(file.get(), mode) != 0) {
    return base::ErrnoToStatus(errno, "chmod");
  }
  struct timespec times[2] = {MtimeOf(entry), MtimeOf(entry)};
  if (::futimens(file.get(), times) != 0) return base::ErrnoToStatus(errno, "setting mtime");
  return absl::OkStatus();
}

absl::Status LayerApplier::WriteDirectory(int parent_fd, const std::string& name,
                                          struct archive_entry* entry) {
  // An existing directory is kept: an upper layer's directory entry merges
  // with the lower one's contents and only sets its attributes.
  TP_RETURN_IF_ERROR(ClearForEntry(parent_fd, name, /*keep_dir=*/true));
  // Private until fchmod below gives the entry's exact mode (mkdir's mode
  // would be cut by the umask).
  if (::mkdirat(parent_fd, name.c_str(), 0700) != 0 && errno != EEXIST) {
    return base::ErrnoToStatus(errno, "creating the directory");
  }
  int fd = ::openat(parent_fd, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return base::ErrnoToStatus(errno, "opening the directory");
  base::UniqueFd dir(fd);
  if (options_.preserve_ownership &&
      ::fchown(dir.get(), ::archive_entry_uid(entry), ::archive_entry_gid(entry)) != 0) {
    return base::ErrnoToStatus(errno, "chown");
  }
  if (::fchmod(dir.get(), ::archive_entry_perm(entry)) != 0) {
    return base::ErrnoToStatus(errno, "chmod");
  }
  return absl::OkStatus();
}

absl::Status LayerApplier::WriteSymlink(int parent_fd, const std::string& name,
                                        struct archive_entry* entry) {
  const char* target = ::archive_entry_symlink(entry);
  if (target == nullptr || *target == '\0') {
    return absl::InvalidArgumentError("symlink without a target");
  }
  // Kept as written, even when absolute or climbing with "..": it resolves
  // inside the container's root (docs/adr/2026-11-27-symlinks-resolve-inside-the-root.md).
  TP_RETURN_IF_ERROR(ClearForEntry(parent_fd, name, /*keep_dir=*/false));
  if (::symlinkat(target, parent_fd, name.c_str()) != 0) {
    return base::ErrnoToStatus(errno, "creating the symlink");
  }
  if (options_.preserve_ownership &&
      ::fchownat(parent_fd, name.c_str(), ::archive_entry_uid(entry), ::archive_entry_gid(entry),
                 AT_SYMLINK_NOFOLLOW) != 0) {
    return base::ErrnoToStatus(errno, "chown");
  }
  struct timespec times[2] = {MtimeOf(entry), MtimeOf(entry)};
  if (::utimensat(parent_fd, name.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) {
    return base::ErrnoToStatus(errno, "setting mtime");
  }
  return absl::OkStatus();
}

absl::Status LayerApplier::WriteHardlink(int parent_fd, const std::string& name,
                                         const char* target) {
  absl::StatusOr<Components> target_path = SplitEntryPath(target);
  if (!target_path.ok() || target_path->empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "hardlink target {} is outside the root: {}", target,
        target_path.ok() ? "it is the root" : std::string(target_path.status().message())));
  }
  Components target_dir(target_path->begin(), target_path->end() - 1);
  TP_ASSIGN_OR_RETURN(base::UniqueFd target_parent, root_.OpenDir(target_dir, /*create=*/false));
  TP_ASSIGN_OR_RETURN(std::optional<struct stat> st,
                      RootDir::Lstat(target_parent.get(), target_path->back()));
  // The target is found through the no-follow walk of OpenDir and must be a
  // file or symlink already unpacked (linkat links a symlink itself), so a
  // hardlink never reaches a file outside the root, nor a directory.
  if (!st.has_value() || !(S_ISREG(st->st_mode) || S_ISLNK(st->st_mode))) {
    return absl::InvalidArgumentError(
        fmt::format("hardlink target {} is not a file or symlink already in the root", target));
  }
  TP_RETURN_IF_ERROR(ClearForEntry(parent_fd, name, /*keep_dir=*/false));
  if (::linkat(target_parent.get(), target_path->back().c_str(), parent_fd, name.c_str(), 0) != 0) {
    return base::ErrnoToStatus(errno, fmt::format("linking to {}", target));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::unpack::internal
