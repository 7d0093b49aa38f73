#include "packager/bundle/bundle_layers.h"

#include <map>
#include <set>

#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::bundle {
namespace {

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

std::string DirName(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == 0 || slash == std::string::npos ? "/" : path.substr(0, slash);
}

// The entries of one layer, one per image path; the same entry twice is fine,
// two different ones on one path are an error.
class LayerBuilder {
 public:
  explicit LayerBuilder(std::string name) : name_(std::move(name)) {}

  absl::Status Symlink(const std::string& path, const std::string& target,
                       const std::string& origin) {
    return Put(path, LayerEntry::Symlink(path, target), "-> " + target, origin);
  }
  absl::Status File(const std::string& source, const std::string& path, const std::string& origin) {
    LayerEntry entry = LayerEntry::Copy(std::filesystem::path(source).relative_path(), path);
    return Put(path, std::move(entry), source, origin);
  }

  BundleLayer Finish(const std::filesystem::path& root) && {
    BundleLayer layer;
    layer.name = name_;
    layer.source.root = root;
    for (auto& [path, slot] : entries_) {
      if (slot.entry.kind == LayerEntry::Kind::kCopy) ++layer.files;
      layer.source.entries.push_back(std::move(slot.entry));
    }
    return layer;
  }

  bool empty() const { return entries_.empty(); }

 private:
  struct Slot {
    LayerEntry entry;
    std::string what;    // identity: the source or "-> target"
    std::string origin;  // for errors
  };

  absl::Status Put(const std::string& path, LayerEntry entry, std::string what,
                   const std::string& origin) {
    auto [it, inserted] = entries_.try_emplace(path, Slot{std::move(entry), what, origin});
    if (!inserted && it->second.what != what) {
      return absl::InvalidArgumentError(
          fmt::format("bundle {} layer: {} would hold both {} (for {}) and {} (for {})", name_,
                      path, it->second.what, it->second.origin, what, origin));
    }
    return absl::OkStatus();
  }

  std::string name_;
  std::map<std::string, Slot> entries_;
};

absl::Status AddAtHostPath(const ResolvedObject& object, LayerBuilder* layer) {
  // Every link met on the way is kept (`/lib64 -> usr/lib64`, `libfoo.so.1 ->
  // libfoo.so.1.2.3`), so the image's loader walks the same path the host's did.
  for (const SymlinkHop& hop : object.walk.links) {
    TP_RETURN_IF_ERROR(layer->Symlink(hop.path, hop.target, object.name));
  }
  return layer->File(object.walk.target, object.walk.target, object.name);
}

// A project library by its DT_NEEDED name in kBundleProjectLibDir; a chain
// of links within the directory it was found in is kept.
absl::Status AddRelocated(const ResolvedObject& object, LayerBuilder* layer) {
  const std::string dir = kBundleProjectLibDir;
  const std::string found_dir = DirName(object.walk.target);
  bool same_dir = object.walk.links.empty() || BaseName(object.walk.links[0].path) == object.name;
  for (const SymlinkHop& hop : object.walk.links) {
    same_dir =
        same_dir && DirName(hop.path) == found_dir && hop.target.find('/') == std::string::npos;
  }
  // Links are kept only while they stay inside the directory the library was
  // found in; any other link would dangle at /usr/lib, so the file itself is
  // copied under its DT_NEEDED name.
  if (!same_dir) return layer->File(object.walk.target, dir + "/" + object.name, object.name);
  for (const SymlinkHop& hop : object.walk.links) {
    TP_RETURN_IF_ERROR(layer->Symlink(dir + "/" + BaseName(hop.path), hop.target, object.name));
  }
  return layer->File(object.walk.target, dir + "/" + BaseName(object.walk.target), object.name);
}

}  // namespace

bool IsSystemLibraryPath(const std::string& path) {
  for (const char* prefix : {"/lib/", "/lib32/", "/lib64/", "/libx32/", "/usr/lib/", "/usr/lib32/",
                             "/usr/lib64/", "/usr/libx32/"}) {
    if (path.rfind(prefix, 0) == 0) return true;
  }
  return false;
}

std::string BundleBinaryPath(const Closure& closure) {
  return std::string(kBundleBinaryDir) + "/" + BaseName(closure.executable.walk.target);
}

absl::StatusOr<std::vector<BundleLayer>> PlanBundleLayers(const Closure& closure,
                                                          const LoaderConfig& config,
                                                          const std::filesystem::path& etc_dir) {
  LayerBuilder system("system");
  LayerBuilder project("project");
  // The image loader's default directories, as paths without links; the
  // first one receives links to libraries it would not find otherwise.
  std::set<std::string> default_dirs;
  std::string first_default_dir;
  for (const std::string& dir : config.default_dirs) {
    auto walk = WalkPath(config.root, dir);
    const std::string canonical = walk.ok() ? walk->target : dir;
    if (first_default_dir.empty()) first_default_dir = canonical;
    default_dirs.insert(canonical);
  }
  std::vector<const ResolvedObject*> objects;
  if (closure.interpreter) objects.push_back(&*closure.interpreter);
  for (const ResolvedObject& library : closure.libraries) objects.push_back(&library);
  for (const ResolvedObject* object : objects) {
    const bool system_file = IsSystemLibraryPath(object->walk.target);
    // PT_INTERP and a DT_NEEDED with a slash are absolute paths the kernel and
    // the loader open as written, so they keep their host path.
    if (system_file || object->via == FoundVia::kInterpreter || object->via == FoundVia::kPath) {
      LayerBuilder* layer = system_file ? &system : &project;
      TP_RETURN_IF_ERROR(AddAtHostPath(*object, layer));
      // The image has no ld.so.cache: a library the host found only through
      // ld.so.conf, LD_LIBRARY_PATH or $ORIGIN needs a link in a default dir, or
      // the image's loader would not find it.
      bool hidden = object->via == FoundVia::kLdSoConf || object->via == FoundVia::kLdLibraryPath ||
                    object->origin_relative;
      if (hidden) {
        auto dir = WalkPath(config.root, DirName(object->path));
        hidden = !dir.ok() || default_dirs.count(dir->target) == 0;
      }
      if (hidden && !first_default_dir.empty()) {
        TP_RETURN_IF_ERROR(layer->Symlink(first_default_dir + "/" + object->name,
                                          object->walk.target, object->name));
      }
    } else {
      TP_RETURN_IF_ERROR(AddRelocated(*object, &project));
    }
  }
  // Least volatile first: a rebuilt binary changes only the last layer, and
  // the others keep their digests (fixed mtimes), so registries already hold them.
  std::vector<BundleLayer> layers;
  BundleLayer etc;
  etc.name = "etc";
  etc.source.root = etc_dir;
  etc.source.entries.push_back(LayerEntry::Copy("etc", "/etc"));
  etc.source.entries.push_back(LayerEntry::Copy("tmp", "/tmp", EntryOverrides{{}, 01777}));
  layers.push_back(std::move(etc));
  if (!system.empty()) layers.push_back(std::move(system).Finish(config.root));
  if (!project.empty()) layers.push_back(std::move(project).Finish(config.root));
  LayerBuilder binary("binary");
  TP_RETURN_IF_ERROR(binary.File(closure.executable.walk.target, BundleBinaryPath(closure),
                                 closure.executable.name));
  layers.push_back(std::move(binary).Finish(config.root));
  return layers;
}

}  // namespace trainpkg::packager::bundle
