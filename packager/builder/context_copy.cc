#include "packager/builder/context_copy.h"

#include <fnmatch.h>

#include <filesystem>
#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/copy_flags.h"
#include "packager/dockerfile/context_path.h"
#include "packager/layer/tar_archive.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;

bool HasGlob(std::string_view s) { return s.find_first_of("*?[") != std::string_view::npos; }

std::string_view BaseName(std::string_view rel) {
  size_t slash = rel.rfind('/');
  return slash == std::string_view::npos ? rel : rel.substr(slash + 1);
}

std::string JoinImage(std::string_view dir, std::string_view name) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += name;
  return out;
}

// A source the copy reads: its context path and what it is after following
// a symlink given as the source itself.
struct Source {
  std::string rel;           // as matched (what the layer writer is given)
  std::string resolved_rel;  // after symlinks
  bool is_dir = false;
};

absl::StatusOr<Source> Resolve(const BuildContext& ctx, const std::string& rel) {
  Source source{rel, rel, false};
  if (rel == ".") {
    source.is_dir = true;
    return source;
  }
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(ctx.root() / rel, ec);
  if (ec) return absl::NotFoundError(fmt::format("source \"{}\": {}", rel, ec.message()));
  fs::path inside = resolved.lexically_relative(ctx.root());
  if (inside.empty() || *inside.begin() == "..") {
    return absl::InvalidArgumentError(fmt::format(
        "source \"{}\" is a symlink (or passes through one) to {}, outside the build context {}",
        rel, resolved.string(), ctx.root().string()));
  }
  source.resolved_rel = inside == "." ? "." : inside.generic_string();
  if (source.resolved_rel == ".") {
    source.is_dir = true;
    return source;
  }
  const ContextFile* file = ctx.Find(source.resolved_rel);
  if (file == nullptr) {
    if (fs::exists(ctx.root() / source.resolved_rel, ec)) {
      return absl::NotFoundError(fmt::format("source \"{}\" is excluded by .dockerignore", rel));
    }
    return absl::NotFoundError(
        fmt::format("source \"{}\" not found in the build context {}", rel, ctx.root().string()));
  }
  if (file->type == ContextFile::Type::kOther) {
    return absl::InvalidArgumentError(fmt::format(
        "source \"{}\" is a socket, fifo or device; only files, directories and links are copied",
        rel));
  }
  source.is_dir = file->type == ContextFile::Type::kDirectory;
  return source;
}

// A directory's kept contents under `dest`: whole subtrees where nothing in
// them is excluded, one entry per path elsewhere.
void AddDirectory(const BuildContext& ctx, const std::string& rel, const std::string& dest,
                  const EntryOverrides& overrides, std::vector<LayerEntry>* out) {
  if (!ctx.HasExclusionsBeneath(rel)) {
    out->push_back(LayerEntry::Copy(rel, dest, overrides));
    return;
  }
  const std::string prefix = rel == "." ? "" : rel + "/";
  for (const ContextFile* child : ctx.Beneath(rel)) {
    std::string_view tail = std::string_view(child->rel).substr(prefix.size());
    if (tail.find('/') != std::string_view::npos) continue;  // direct children only
    std::string child_dest = JoinImage(dest, tail);
    if (child->type == ContextFile::Type::kDirectory) {
      AddDirectory(ctx, child->rel, child_dest, overrides, out);
    } else {
      out->push_back(LayerEntry::Copy(child->rel, child_dest, overrides));
    }
  }
}

}  // namespace

absl::StatusOr<std::vector<LayerEntry>> PlanContextCopy(const BuildContext& ctx,
                                                        const dockerfile::CopyInstruction& copy,
                                                        std::string_view workdir) {
  TP_ASSIGN_OR_RETURN(EntryOverrides overrides, ParseCopyFlags(copy.chown, copy.chmod));
  TP_ASSIGN_OR_RETURN(std::string dest, dockerfile::ResolveDestination(workdir, copy.dest));
  std::vector<Source> sources;
  for (const std::string& written : copy.sources) {
    auto normalized = dockerfile::NormalizeSourcePath(written);
    if (!normalized.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("source \"{}\": {}", written, std::string(normalized.status().message())));
    }
    if (!HasGlob(*normalized)) {
      TP_ASSIGN_OR_RETURN(Source source, Resolve(ctx, *normalized));
      sources.push_back(std::move(source));
      continue;
    }
    size_t matched = 0;
    for (const ContextFile& f : ctx.files()) {
      // FNM_PATHNAME: a wildcard never matches '/', as with Go's filepath.Match
      // that Docker applies to COPY sources.
      if (::fnmatch(normalized->c_str(), f.rel.c_str(), FNM_PATHNAME) != 0) continue;
      TP_ASSIGN_OR_RETURN(Source source, Resolve(ctx, f.rel));
      sources.push_back(std::move(source));
      ++matched;
    }
    if (matched == 0) {
      return absl::NotFoundError(fmt::format(
          "source pattern \"{}\" matches nothing in the build context (after .dockerignore)",
          written));
    }
  }
  const bool into_dir = !dest.empty() && dest.back() == '/';
  // The Dockerfile reference: with several sources DEST must be a directory
  // and end with '/'.
  if (sources.size() > 1 && !into_dir) {
    return absl::InvalidArgumentError(fmt::format(
        "{} sources are copied, so the destination \"{}\" must be a directory ending with '/'",
        sources.size(), copy.dest));
  }
  // DEST as a directory: where a directory's contents or an archive's members land.
  std::string dir_dest = dest;
  if (dir_dest.size() > 1 && dir_dest.back() == '/') dir_dest.pop_back();
  std::vector<LayerEntry> entries;
  for (const Source& source : sources) {
    if (copy.is_add && !source.is_dir) {
      TP_ASSIGN_OR_RETURN(bool archive, IsTarArchive(ctx.root() / source.resolved_rel));
      if (archive) {  // unpacked under DEST, with or without a trailing '/'
        entries.push_back(LayerEntry::Extract(source.rel, dir_dest, overrides));
        continue;
      }
    }
    // Docker's rule: a directory source copies its contents, not itself.
    if (source.is_dir) {
      AddDirectory(ctx, source.resolved_rel, dir_dest, overrides, &entries);
    } else {
      std::string file_dest = into_dir ? JoinImage(dest, BaseName(source.rel)) : dest;
      entries.push_back(LayerEntry::Copy(source.rel, file_dest, overrides));
    }
  }
  return entries;
}

}  // namespace trainpkg::packager::builder
