#include "packager/layer/internal/layer_plan.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <memory>
#include <optional>
#include <tuple>

#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/layer/internal/archive_reader.h"
#include "packager/layer/internal/image_path.h"

namespace trainpkg::packager::layer_internal {
namespace {

namespace fs = std::filesystem;

// Modes are normalised unless attributes are kept: only the executable bit
// of a source file carries over, so the layer's digest does not depend on
// the umask or checkout that made the files.
constexpr uint32_t kDirectoryMode = 0755;
constexpr uint32_t kExecutableMode = 0755;
constexpr uint32_t kFileMode = 0644;
constexpr uint32_t kSymlinkMode = 0777;

struct Node {
  TarEntry entry;
  // Identity of the source inode, for hardlink detection (files only).
  dev_t device = 0;
  ino_t inode = 0;
  nlink_t links = 0;
  bool staged = false;  // content staged from an archive: hardlinks share the staged inode
};

bool IsWithin(const fs::path& path, const fs::path& root) {
  const std::string& p = path.native();
  const std::string& r = root.native();
  if (p.size() < r.size() || p.compare(0, r.size(), r) != 0) return false;
  // A byte prefix alone is not enough: "/ctx-other" starts with "/ctx".
  return p.size() == r.size() || r == "/" || p[r.size()] == '/';
}

class Planner {
 public:
  explicit Planner(const LayerOptions& options)
      : options_(options),
        epoch_(std::max<int64_t>(0, options.source_date_epoch.value_or(0))),
        staging_parent_(options.staging_dir),
        extract_limits_(options.extract_limits) {}

  absl::Status SetRoot(const fs::path& root) {
    std::error_code ec;
    root_ = fs::canonical(root, ec);
    if (ec) {
      return base::ErrnoToStatus(ec.value(), fmt::format("build context {}", root.string()));
    }
    return absl::OkStatus();
  }

  absl::Status Add(const LayerEntry& entry) {
    TP_ASSIGN_OR_RETURN(std::string dest,
                        NormalizeRelativePath(entry.destination, "destination", "the image root"));
    switch (entry.kind) {
      case LayerEntry::Kind::kCopy:
        return AddCopy(entry, dest);
      case LayerEntry::Kind::kWhiteout:
        if (dest.empty()) return absl::InvalidArgumentError("cannot whiteout the image root");
        return AddMarker(
            JoinPath(ParentPath(dest), std::string(kWhiteoutPrefix) + std::string(BaseName(dest))));
      case LayerEntry::Kind::kOpaqueWhiteout:
        return AddMarker(JoinPath(dest, std::string(kOpaqueWhiteout)));
      case LayerEntry::Kind::kSymlink:
        return AddSymlink(dest, entry.source.string());
      case LayerEntry::Kind::kExtract:
        return AddExtract(entry, dest);
      case LayerEntry::Kind::kContent:
        return AddContent(entry, dest);
    }
    return absl::OkStatus();
  }

  std::optional<base::TempDir>& staging() { return staging_; }

  std::vector<TarEntry> Finish() {
    AddMissingParents();
    std::vector<TarEntry> out;
    out.reserve(nodes_.size());
    // One inode under several names becomes one file and hardlinks to it. The
    // key includes owner, mode and mtime: a tar hardlink has no attributes of
    // its own, so names whose attributes differ must stay separate files. The
    // map is walked in path order, so the file precedes its links, as an
    // extractor needs.
    std::map<std::tuple<dev_t, ino_t, uint32_t, uint32_t, uint32_t, int64_t>, std::string> firsts;
    for (auto& [name, node] : nodes_) {
      TarEntry& e = node.entry;
      if (e.type == TarEntry::Type::kFile && (node.links > 1 || node.staged)) {
        auto key =
            std::make_tuple(node.device, node.inode, e.owner.uid, e.owner.gid, e.mode, e.mtime);
        auto [it, inserted] = firsts.emplace(key, name);
        if (!inserted) {
          e.type = TarEntry::Type::kHardlink;
          e.link_target = it->second;
          e.source.clear();
          e.size = 0;
        }
      }
      out.push_back(std::move(e));
    }
    return out;
  }

 private:
  static std::string JoinPath(std::string_view parent, std::string_view child) {
    if (parent.empty()) return std::string(child);
    if (child.empty()) return std::string(parent);
    return fmt::format("{}/{}", parent, child);
  }

  int64_t Mtime(int64_t file_mtime) const { return LayerMtime(file_mtime, options_); }

  // `source` inside the root, symlinks followed.
  absl::StatusOr<fs::path> ResolveSource(const fs::path& source) const {
    TP_ASSIGN_OR_RETURN(std::string rel,
                        NormalizeRelativePath(source.string(), "source", "the build context"));
    std::error_code ec;
    // Symlinks are followed before the check, so a link inside the context that
    // points outside it is refused rather than archived.
    const fs::path resolved = fs::canonical(root_ / rel, ec);
    if (ec) {
      return base::ErrnoToStatus(ec.value(),
                                 fmt::format("source \"{}\" in the build context", rel));
    }
    if (!IsWithin(resolved, root_)) {
      return absl::InvalidArgumentError(
          fmt::format("source \"{}\" resolves to {}, outside the build context {}", rel,
                      resolved.string(), root_.string()));
    }
    return resolved;
  }

  absl::Status AddCopy(const LayerEntry& entry, const std::string& dest) {
    TP_ASSIGN_OR_RETURN(const fs::path resolved, ResolveSource(entry.source));
    TP_ASSIGN_OR_RETURN(std::string rel, NormalizeRelativePath(entry.source.string(), "source",
                                                               "the build context"));
    struct stat st;
    if (::lstat(resolved.c_str(), &st) != 0) {
      return base::ErrnoToStatus(errno, fmt::format("stat {}", resolved.string()));
    }
    if (!S_ISDIR(st.st_mode)) {
      if (dest.empty()) {
        return absl::InvalidArgumentError(
            fmt::format("source \"{}\" is not a directory; it cannot become the image root", rel));
      }
      return AddFromStat(resolved, st, dest, entry.overrides);
    }
    if (!dest.empty()) TP_RETURN_IF_ERROR(AddFromStat(resolved, st, dest, entry.overrides));
    std::error_code ec;
    fs::recursive_directory_iterator it(resolved, ec);
    for (; !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      const fs::path& path = it->path();
      if (::lstat(path.c_str(), &st) != 0) {
        return base::ErrnoToStatus(errno, fmt::format("stat {}", path.string()));
      }
      TP_RETURN_IF_ERROR(AddFromStat(
          path, st, JoinPath(dest, path.lexically_relative(resolved).string()), entry.overrides));
    }
    if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("walking {}", resolved.string()));
    return absl::OkStatus();
  }

  absl::Status AddFromStat(const fs::path& path, const struct stat& st, const std::string& dest,
                           const EntryOverrides& overrides) {
    // A source named ".wh.x" would delete x from the lower layers when the image
    // is unpacked; such names come only from Whiteout entries.
    if (BaseName(dest).substr(0, kWhiteoutPrefix.size()) == kWhiteoutPrefix) {
      return absl::InvalidArgumentError(fmt::format(
          "{} would be archived as \"{}\", a whiteout name; rename it", path.string(), dest));
    }
    Node node;
    TarEntry& e = node.entry;
    e.name = dest;
    // root:root unless told otherwise: the builder's uid means nothing inside
    // the image.
    e.owner = overrides.owner.value_or(Owner{});
    e.mtime = Mtime(st.st_mtim.tv_sec);
    if (S_ISREG(st.st_mode)) {
      e.type = TarEntry::Type::kFile;
      e.source = path;
      e.size = st.st_size;
      e.mode = (st.st_mode & 0111) != 0 ? kExecutableMode : kFileMode;
      node.device = st.st_dev;
      node.inode = st.st_ino;
      node.links = st.st_nlink;
    } else if (S_ISDIR(st.st_mode)) {
      e.type = TarEntry::Type::kDirectory;
      e.mode = kDirectoryMode;
    } else if (S_ISLNK(st.st_mode)) {
      e.type = TarEntry::Type::kSymlink;
      e.mode = kSymlinkMode;
      TP_ASSIGN_OR_RETURN(e.link_target, ReadLink(path, st));
    } else {
      return absl::InvalidArgumentError(fmt::format(
          "{} is a socket, fifo or device; layers hold files, directories and links only",
          path.string()));
    }
    if (overrides.keep_attributes) {
      if (e.type != TarEntry::Type::kSymlink) e.mode = st.st_mode & 07777;
      if (!overrides.owner.has_value()) e.owner = Owner{st.st_uid, st.st_gid};
    }
    if (overrides.mode.has_value() && e.type != TarEntry::Type::kSymlink) {
      e.mode = *overrides.mode & 07777;
    }
    return Insert(std::move(node));
  }

  absl::Status AddExtract(const LayerEntry& entry, const std::string& dest) {
    TP_ASSIGN_OR_RETURN(const fs::path archive, ResolveSource(entry.source));
    const std::string shown = entry.source.string();
    TP_RETURN_IF_ERROR(EnsureStaging());
    // The members are staged, then written into the layer: caps as for
    // unpacking a layer, on the staging filesystem.
    TP_ASSIGN_OR_RETURN(unpack::ExtractBudget budget,
                        unpack::ExtractBudget::ForTarget(extract_limits_, staging_->path()));
    TP_ASSIGN_OR_RETURN(std::unique_ptr<ArchiveReader> reader, ArchiveReader::Open(archive, &budget));
    std::map<std::string, const Node*> staged_files;  // this archive's files, by image path
    ArchiveMember member;
    for (;;) {
      TP_ASSIGN_OR_RETURN(bool more, reader->Next(&member));
      if (!more) break;
      const std::string what = fmt::format("member \"{}\" of {}", member.name, shown);
      TP_ASSIGN_OR_RETURN(std::string rel,
                          NormalizeRelativePath(member.name, fmt::format("member of {}", shown),
                                                fmt::format("its destination /{}", dest)));
      if (member.type == ArchiveMember::Type::kOther) {
        return absl::InvalidArgumentError(fmt::format(
            "{} is a {}; layers hold files, directories and links only", what, member.other_kind));
      }
      if (rel.empty()) {  // "./": the destination itself
        if (member.type != ArchiveMember::Type::kDirectory) {
          return absl::InvalidArgumentError(fmt::format("{} names the destination", what));
        }
        if (dest.empty()) continue;  // the image root has no entry of its own
      }
      const std::string name = JoinPath(dest, rel);
      if (BaseName(name).substr(0, kWhiteoutPrefix.size()) == kWhiteoutPrefix) {
        return absl::InvalidArgumentError(fmt::format("{} has a whiteout name; rename it", what));
      }
      Node node;
      TarEntry& e = node.entry;
      e.name = name;
      e.mode = member.mode & 07777;
      e.owner = entry.overrides.owner.value_or(member.owner);
      e.mtime = Mtime(member.mtime);
      switch (member.type) {
        case ArchiveMember::Type::kFile:
          TP_RETURN_IF_ERROR(StageContent(reader.get(), member, what, &node));
          break;
        case ArchiveMember::Type::kHardlink: {
          TP_ASSIGN_OR_RETURN(
              std::string target_rel,
              NormalizeRelativePath(member.link_target, fmt::format("hardlink target in {}", shown),
                                    fmt::format("its destination /{}", dest)));
          auto target = staged_files.find(JoinPath(dest, target_rel));
          if (target == staged_files.end()) {
            return absl::InvalidArgumentError(fmt::format(
                "{} is a hardlink to \"{}\", which is not a file earlier in the archive", what,
                member.link_target));
          }
          const Node& first = *target->second;
          node = first;  // same staged inode and attributes: written as a hardlink to it
          node.entry.name = name;
          break;
        }
        case ArchiveMember::Type::kDirectory:
          e.type = TarEntry::Type::kDirectory;
          break;
        case ArchiveMember::Type::kSymlink:
          if (member.link_target.empty()) {
            return absl::InvalidArgumentError(fmt::format("{} is a symlink with no target", what));
          }
          e.type = TarEntry::Type::kSymlink;
          e.mode = kSymlinkMode;
          e.link_target = member.link_target;
          break;
        case ArchiveMember::Type::kOther:
          break;  // refused above
      }
      if (entry.overrides.mode.has_value() && node.entry.type != TarEntry::Type::kSymlink) {
        node.entry.mode = *entry.overrides.mode & 07777;
      }
      const bool is_file = node.entry.type == TarEntry::Type::kFile;
      absl::Status inserted = Insert(std::move(node));
      if (!inserted.ok()) {
        return base::WithContext(inserted, what);
      }
      if (is_file) {
        staged_files[name] = &nodes_.at(name);
      } else {
        staged_files.erase(name);
      }
    }
    return absl::OkStatus();
  }

  absl::Status EnsureStaging() {
    if (staging_.has_value()) return absl::OkStatus();
    TP_ASSIGN_OR_RETURN(base::TempDir dir,
                        base::TempDir::Create("trainpkg-extract", staging_parent_));
    staging_.emplace(std::move(dir));
    return absl::OkStatus();
  }

  // A file with the entry's bytes, staged so the tar writer reads it like
  // any other file.
  absl::Status AddContent(const LayerEntry& entry, const std::string& dest) {
    if (dest.empty()) return absl::InvalidArgumentError("the image root cannot be a file");
    if (BaseName(dest).substr(0, kWhiteoutPrefix.size()) == kWhiteoutPrefix) {
      return absl::InvalidArgumentError(
          fmt::format("\"/{}\" is a whiteout name; a file can't have it", dest));
    }
    TP_RETURN_IF_ERROR(EnsureStaging());
    const fs::path path = staging_->path() / std::to_string(staged_count_++);
    TP_RETURN_IF_ERROR(base::WriteFileAtomic(path, entry.content, base::FileSync::kNoSync));
    Node node;
    TarEntry& e = node.entry;
    e.name = dest;
    e.type = TarEntry::Type::kFile;
    e.source = path;
    e.size = static_cast<int64_t>(entry.content.size());
    e.mode = entry.overrides.mode.value_or(kFileMode) & 07777;
    e.owner = entry.overrides.owner.value_or(Owner{});
    e.mtime = Mtime(epoch_);
    return Insert(std::move(node));
  }

  // Writes the current member's content to a new file in the staging
  // directory and points `node` at it.
  absl::Status StageContent(ArchiveReader* reader, const ArchiveMember& member,
                            const std::string& what, Node* node) {
    const fs::path path = staging_->path() / std::to_string(staged_count_++);
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("creating {}", path.string()));
    absl::Status copied = reader->CopyData(fd);
    struct stat st;
    if (copied.ok() && ::fstat(fd, &st) != 0) {
      copied = base::ErrnoToStatus(errno, fmt::format("stat {}", path.string()));
    }
    if (::close(fd) != 0 && copied.ok()) {
      copied = base::ErrnoToStatus(errno, fmt::format("writing {}", path.string()));
    }
    if (!copied.ok()) {
      return base::WithContext(copied, what);
    }
    // The header's size and the bytes read differ only for a damaged archive.
    if (st.st_size != member.size) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: the archive says {} bytes, its data has {}", what, member.size, st.st_size));
    }
    node->entry.type = TarEntry::Type::kFile;
    node->entry.source = path;
    node->entry.size = st.st_size;
    node->device = st.st_dev;
    node->inode = st.st_ino;
    node->links = st.st_nlink;
    node->staged = true;
    return absl::OkStatus();
  }

  static absl::StatusOr<std::string> ReadLink(const fs::path& path, const struct stat& st) {
    // One byte more than lstat said: a full buffer means the link changed
    // between lstat and readlink.
    std::string target(static_cast<size_t>(st.st_size) + 1, '\0');
    ssize_t n = ::readlink(path.c_str(), target.data(), target.size());
    if (n < 0) return base::ErrnoToStatus(errno, fmt::format("readlink {}", path.string()));
    if (static_cast<size_t>(n) == target.size()) {
      return absl::FailedPreconditionError(
          fmt::format("symlink {} changed while the layer was planned", path.string()));
    }
    target.resize(static_cast<size_t>(n));
    return target;
  }

  absl::Status AddSymlink(const std::string& dest, const std::string& target) {
    if (dest.empty()) return absl::InvalidArgumentError("the image root cannot be a symlink");
    if (target.empty()) {
      return absl::InvalidArgumentError(fmt::format("symlink \"/{}\" has an empty target", dest));
    }
    Node node;
    node.entry.name = dest;
    node.entry.type = TarEntry::Type::kSymlink;
    node.entry.mode = kSymlinkMode;
    node.entry.mtime = Mtime(epoch_);
    node.entry.link_target = target;
    return Insert(std::move(node));
  }

  absl::Status AddMarker(std::string name) {
    Node node;
    node.entry.name = std::move(name);
    node.entry.type = TarEntry::Type::kFile;
    node.entry.mode = kFileMode;
    node.entry.mtime = Mtime(epoch_);
    return Insert(std::move(node));
  }

  absl::Status Insert(Node node) {
    const std::string& name = node.entry.name;
    for (std::string_view parent = ParentPath(name); !parent.empty(); parent = ParentPath(parent)) {
      auto it = nodes_.find(std::string(parent));
      if (it != nodes_.end() && it->second.entry.type != TarEntry::Type::kDirectory) {
        return absl::InvalidArgumentError(fmt::format(
            "\"/{}\" is not a directory in this layer, so \"/{}\" cannot be added", parent, name));
      }
    }
    auto it = nodes_.find(name);
    // A directory with entries below it cannot become a file: the tar would
    // hold children under a non-directory, which no extractor can create.
    if (it != nodes_.end() && it->second.entry.type == TarEntry::Type::kDirectory &&
        node.entry.type != TarEntry::Type::kDirectory) {
      auto child = std::next(it);  // a directory's first child sorts right after it
      if (child != nodes_.end() && child->first.size() > name.size() &&
          child->first.compare(0, name.size(), name) == 0 && child->first[name.size()] == '/') {
        return absl::InvalidArgumentError(fmt::format(
            "\"/{}\" is a non-empty directory in this layer; it cannot become a file", name));
      }
    }
    nodes_[name] = std::move(node);
    return absl::OkStatus();
  }

  // Parents are written explicitly: an extractor creates a missing parent
  // with its own defaults (umask, current time), which would make the
  // unpacked tree differ from one extractor to the next.
  void AddMissingParents() {
    std::vector<std::string> missing;
    for (const auto& [name, node] : nodes_) {
      for (std::string_view parent = ParentPath(name); !parent.empty();
           parent = ParentPath(parent)) {
        if (nodes_.count(std::string(parent)) != 0) break;
        missing.emplace_back(parent);
      }
    }
    for (std::string& name : missing) {
      Node node;
      node.entry.name = std::move(name);
      node.entry.type = TarEntry::Type::kDirectory;
      node.entry.mode = kDirectoryMode;
      node.entry.mtime = Mtime(epoch_);
      nodes_.emplace(node.entry.name, std::move(node));
    }
  }

  fs::path root_;
  const LayerOptions& options_;
  int64_t epoch_;  // for entries no file stands behind
  std::map<std::string, Node, ImagePathOrder> nodes_;
  fs::path staging_parent_;
  unpack::ExtractLimits extract_limits_;
  std::optional<base::TempDir> staging_;
  int64_t staged_count_ = 0;
};

}  // namespace

absl::StatusOr<LayerPlan> PlanLayer(const LayerSource& source, const LayerOptions& options) {
  Planner planner(options);
  TP_RETURN_IF_ERROR(planner.SetRoot(source.root));
  for (const LayerEntry& entry : source.entries) TP_RETURN_IF_ERROR(planner.Add(entry));
  LayerPlan plan;
  plan.entries = planner.Finish();
  if (planner.staging().has_value()) plan.staging.emplace(std::move(*planner.staging()));
  return plan;
}

}  // namespace trainpkg::packager::layer_internal
