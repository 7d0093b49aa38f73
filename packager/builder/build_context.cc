#include "packager/builder/build_context.h"

#include <dirent.h>
#include <errno.h>
#include <sys/stat.h>

#include <algorithm>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;

std::string Join(std::string_view dir, std::string_view name) {
  if (dir.empty()) return std::string(name);
  return fmt::format("{}/{}", dir, name);
}

bool IsBeneath(std::string_view path, std::string_view dir) {
  if (dir.empty() || dir == ".") return true;
  return path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
         path[dir.size()] == '/';
}

ContextFile FromStat(std::string rel, const struct stat& st) {
  ContextFile f;
  f.rel = std::move(rel);
  if (S_ISREG(st.st_mode)) {
    f.type = ContextFile::Type::kFile;
  } else if (S_ISDIR(st.st_mode)) {
    f.type = ContextFile::Type::kDirectory;
  } else if (S_ISLNK(st.st_mode)) {
    f.type = ContextFile::Type::kSymlink;
  } else {
    f.type = ContextFile::Type::kOther;
  }
  f.size = S_ISREG(st.st_mode) || S_ISLNK(st.st_mode) ? st.st_size : 0;
  f.mtime_sec = st.st_mtim.tv_sec;
  f.mtime_nsec = st.st_mtim.tv_nsec;
  f.device = st.st_dev;
  f.inode = st.st_ino;
  f.links = st.st_nlink;
  f.mode = st.st_mode;
  return f;
}

class Walker {
 public:
  Walker(const fs::path& root, const dockerfile::DockerIgnore& ignore,
         std::vector<ContextFile>* files, std::vector<std::string>* excluded)
      : root_(root), ignore_(ignore), files_(files), excluded_(excluded) {}

  absl::Status Walk(const std::string& rel_dir) {
    fs::path dir = rel_dir.empty() ? root_ : root_ / rel_dir;
    DIR* d = ::opendir(dir.c_str());
    if (d == nullptr) return base::ErrnoToStatus(errno, fmt::format("reading {}", dir.string()));
    std::vector<std::string> names;
    while (struct dirent* e = ::readdir(d)) {
      std::string_view name = e->d_name;
      if (name != "." && name != "..") names.emplace_back(name);
    }
    ::closedir(d);
    // readdir order depends on the file system: sorted, the walk and the cache
    // keys built from it are the same on every machine.
    std::sort(names.begin(), names.end());
    for (const std::string& name : names) {
      std::string rel = Join(rel_dir, name);
      struct stat st;
      fs::path path = root_ / rel;
      // lstat: a symlink is recorded as a link, never followed out of the context.
      if (::lstat(path.c_str(), &st) != 0) {
        return base::ErrnoToStatus(errno, fmt::format("stat {}", path.string()));
      }
      const bool is_dir = S_ISDIR(st.st_mode);
      if (ignore_.IsExcluded(rel)) {
        excluded_->push_back(rel);
        if (is_dir && ignore_.MustWalk(rel)) TP_RETURN_IF_ERROR(Walk(rel));
        continue;
      }
      files_->push_back(FromStat(rel, st));
      if (is_dir) TP_RETURN_IF_ERROR(Walk(rel));
    }
    return absl::OkStatus();
  }

 private:
  const fs::path& root_;
  const dockerfile::DockerIgnore& ignore_;
  std::vector<ContextFile>* files_;
  std::vector<std::string>* excluded_;
};

}  // namespace

absl::StatusOr<BuildContext> BuildContext::Scan(const fs::path& root,
                                                const dockerfile::DockerIgnore& ignore) {
  std::error_code ec;
  fs::path canonical = fs::canonical(root, ec);
  if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("build context {}", root.string()));
  if (!fs::is_directory(canonical, ec)) {
    return absl::InvalidArgumentError(
        fmt::format("build context {} is not a directory", root.string()));
  }
  BuildContext ctx;
  ctx.root_ = canonical;
  Walker walker(ctx.root_, ignore, &ctx.files_, &ctx.excluded_);
  TP_RETURN_IF_ERROR(walker.Walk(""));
  auto by_rel = [](const ContextFile& a, const ContextFile& b) { return a.rel < b.rel; };
  std::sort(ctx.files_.begin(), ctx.files_.end(), by_rel);
  std::sort(ctx.excluded_.begin(), ctx.excluded_.end());
  return ctx;
}

const ContextFile* BuildContext::Find(std::string_view rel) const {
  auto it = std::lower_bound(files_.begin(), files_.end(), rel,
                             [](const ContextFile& f, std::string_view r) { return f.rel < r; });
  if (it == files_.end() || it->rel != rel) return nullptr;
  return &*it;
}

std::vector<const ContextFile*> BuildContext::Beneath(std::string_view rel) const {
  std::vector<const ContextFile*> out;
  for (const ContextFile& f : files_) {
    if (IsBeneath(f.rel, rel)) out.push_back(&f);
  }
  return out;
}

bool BuildContext::HasExclusionsBeneath(std::string_view rel) const {
  return std::any_of(excluded_.begin(), excluded_.end(),
                     [&](const std::string& e) { return IsBeneath(e, rel); });
}

}  // namespace trainpkg::packager::builder
