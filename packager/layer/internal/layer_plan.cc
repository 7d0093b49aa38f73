#include "packager/layer/internal/layer_plan.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <map>
#include <tuple>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/layer/internal/image_path.h"

namespace trainpkg::packager::layer_internal {
namespace {

namespace fs = std::filesystem;

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
};

bool IsWithin(const fs::path& path, const fs::path& root) {
  const std::string& p = path.native();
  const std::string& r = root.native();
  if (p.size() < r.size() || p.compare(0, r.size(), r) != 0) return false;
  return p.size() == r.size() || r == "/" || p[r.size()] == '/';
}

class Planner {
 public:
  explicit Planner(const LayerOptions& options)
      : epoch_(std::max<int64_t>(0, options.source_date_epoch.value_or(0))),
        policy_(options.mtime_policy) {}

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
    }
    return absl::OkStatus();
  }

  std::vector<TarEntry> Finish() {
    AddMissingParents();
    std::vector<TarEntry> out;
    out.reserve(nodes_.size());
    std::map<std::tuple<dev_t, ino_t, uint32_t, uint32_t, uint32_t, int64_t>, std::string> firsts;
    for (auto& [name, node] : nodes_) {
      TarEntry& e = node.entry;
      if (e.type == TarEntry::Type::kFile && node.links > 1) {
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

  int64_t Mtime(int64_t file_mtime) const {
    if (policy_ == MtimePolicy::kSet) return epoch_;
    return std::clamp<int64_t>(file_mtime, 0, epoch_);
  }

  absl::Status AddCopy(const LayerEntry& entry, const std::string& dest) {
    TP_ASSIGN_OR_RETURN(std::string rel, NormalizeRelativePath(entry.source.string(), "source",
                                                               "the build context"));
    std::error_code ec;
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
    if (BaseName(dest).substr(0, kWhiteoutPrefix.size()) == kWhiteoutPrefix) {
      return absl::InvalidArgumentError(fmt::format(
          "{} would be archived as \"{}\", a whiteout name; rename it", path.string(), dest));
    }
    Node node;
    TarEntry& e = node.entry;
    e.name = dest;
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

  static absl::StatusOr<std::string> ReadLink(const fs::path& path, const struct stat& st) {
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
  int64_t epoch_;
  MtimePolicy policy_;
  std::map<std::string, Node, ImagePathOrder> nodes_;
};

}  // namespace

absl::StatusOr<std::vector<TarEntry>> PlanLayer(const LayerSource& source,
                                                const LayerOptions& options) {
  Planner planner(options);
  TP_RETURN_IF_ERROR(planner.SetRoot(source.root));
  for (const LayerEntry& entry : source.entries) TP_RETURN_IF_ERROR(planner.Add(entry));
  return planner.Finish();
}

}  // namespace trainpkg::packager::layer_internal
