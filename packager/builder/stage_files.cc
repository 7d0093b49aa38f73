#include "packager/builder/stage_files.h"

#include <filesystem>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/copy_flags.h"
#include "packager/dockerfile/context_path.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;

std::string Clean(std::string path) {
  if (path.empty() || path.front() != '/') path.insert(path.begin(), '/');
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

// `path` strictly beneath `dir`: the rest without the leading '/'; else "".
std::string Beneath(std::string_view path, std::string_view dir) {
  if (dir == "/") return path.size() > 1 ? std::string(path.substr(1)) : "";
  if (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
      path[dir.size()] == '/') {
    return std::string(path.substr(dir.size() + 1));
  }
  return "";
}

std::string Join(std::string_view dir, std::string_view rest) {
  std::string out(dir);
  if (out.empty() || out.back() != '/') out += '/';
  out += rest;
  return out;
}

bool IsDirInContext(const BuildContext& ctx, const fs::path& source) {
  std::error_code ec;
  fs::path resolved = fs::weakly_canonical(ctx.root() / source.relative_path(), ec);
  return !ec && fs::is_directory(resolved, ec);
}

// `from` (a file or a heredoc's file) copied again to `target`.
LayerEntry Recopy(const LayerEntry& from, std::string target, const EntryOverrides& overrides) {
  if (from.kind == LayerEntry::Kind::kContent) {
    return LayerEntry::Content(std::move(target), from.content, overrides);
  }
  return LayerEntry::Copy(from.source, std::move(target), overrides);
}

}  // namespace

void AddStageFiles(const BuildContext& ctx, const std::vector<LayerEntry>& entries,
                   std::vector<StageFile>* files) {
  for (const LayerEntry& entry : entries) {
    if (entry.kind == LayerEntry::Kind::kContent) {  // a heredoc's file
      files->push_back(StageFile{Clean(entry.destination), entry, false});
    }
    if (entry.kind != LayerEntry::Kind::kCopy) continue;
    files->push_back(StageFile{Clean(entry.destination), entry, IsDirInContext(ctx, entry.source)});
  }
}

absl::StatusOr<std::vector<LayerEntry>> PlanStageCopy(const std::vector<StageFile>& files,
                                                      const BuildContext& ctx,
                                                      const dockerfile::CopyInstruction& copy,
                                                      std::string_view workdir,
                                                      std::string_view stage_name) {
  TP_ASSIGN_OR_RETURN(EntryOverrides flags, ParseCopyFlags(copy.chown, copy.chmod));
  TP_ASSIGN_OR_RETURN(std::string dest, dockerfile::ResolveDestination(workdir, copy.dest));
  const bool into_dir = !dest.empty() && dest.back() == '/';
  if (copy.sources.size() > 1 && !into_dir) {
    return absl::InvalidArgumentError(fmt::format(
        "{} sources are copied, so the destination \"{}\" must be a directory ending with '/'",
        copy.sources.size(), copy.dest));
  }
  const std::string dest_dir = Clean(dest);
  std::vector<LayerEntry> out;
  auto overrides_for = [&](const LayerEntry& from) {
    EntryOverrides o = from.overrides;
    if (flags.owner) o.owner = flags.owner;
    if (flags.mode) o.mode = flags.mode;
    return o;
  };
  for (const std::string& written : copy.sources) {
    if (written.find_first_of("*?[") != std::string::npos) {
      return absl::InvalidArgumentError(fmt::format(
          "source \"{}\": patterns are not supported with --from=<stage>; name the path", written));
    }
    auto rel = dockerfile::NormalizeSourcePath(written);
    if (!rel.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("source \"{}\": {}", written, std::string(rel.status().message())));
    }
    const std::string path = *rel == "." ? "/" : "/" + *rel;
    const std::string name = path == "/" ? "" : path.substr(path.rfind('/') + 1);
    size_t before = out.size();
    for (const StageFile& f : files) {
      const EntryOverrides o = overrides_for(f.entry);
      // Three cases: the path is a file the stage copied, lies inside a directory
      // it copied (read from the context beneath that directory), or holds files
      // it copied (each recopied under DEST).
      if (f.image_path == path) {
        bool as_file = !f.is_dir;
        std::string target = as_file ? (into_dir ? Join(dest_dir, name) : dest) : dest_dir;
        out.push_back(Recopy(f.entry, target, o));
      } else if (std::string rest = Beneath(path, f.image_path); f.is_dir && !rest.empty()) {
        fs::path source = f.entry.source / rest;
        std::error_code ec;
        if (!fs::exists(ctx.root() / source.relative_path(), ec)) continue;
        bool as_file = !IsDirInContext(ctx, source);
        std::string target = as_file ? (into_dir ? Join(dest_dir, name) : dest) : dest_dir;
        out.push_back(LayerEntry::Copy(source, target, o));
      } else if (std::string inner = Beneath(f.image_path, path); !inner.empty()) {
        out.push_back(Recopy(f.entry, Join(dest_dir, inner), o));
      }
    }
    if (out.size() == before) {
      return absl::NotFoundError(fmt::format(
          "\"{}\" is not among the files stage {} copied from the build context (files of a "
          "stage's base image layers are not read)",
          path, stage_name));
    }
  }
  return out;
}

}  // namespace trainpkg::packager::builder
