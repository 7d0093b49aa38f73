#include "packager/bundle/library_resolver.h"

#include <elf.h>
#include <glob.h>

#include <cctype>
#include <deque>
#include <set>
#include <sstream>

#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::bundle {
namespace {

std::string DirectoryOf(const std::string& path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

std::string JoinDir(const std::string& dir, const std::string& name) {
  if (dir.empty() || dir.back() == '/') return dir + name;
  return dir + "/" + name;
}

std::vector<std::string> SplitList(const std::string& text, const std::string& separators) {
  std::vector<std::string> out;
  std::string current;
  for (char c : text) {
    if (separators.find(c) != std::string::npos) {
      out.push_back(current);
      current.clear();
    } else {
      current.push_back(c);
    }
  }
  out.push_back(current);
  return out;
}

// Replaces $ORIGIN/$LIB/$PLATFORM (bare or braced); nullopt for an unknown
// token, so the element is skipped.
std::optional<std::string> ExpandTokens(const std::string& element, const std::string& origin,
                                        const LoaderConfig& config, bool* used_origin) {
  static const std::pair<const char*, int> kTokens[] = {{"ORIGIN", 0}, {"LIB", 1}, {"PLATFORM", 2}};
  std::string out;
  for (size_t i = 0; i < element.size();) {
    if (element[i] != '$') {
      out.push_back(element[i++]);
      continue;
    }
    const bool braced = i + 1 < element.size() && element[i + 1] == '{';
    const size_t name_start = i + (braced ? 2 : 1);
    bool matched = false;
    for (const auto& [name, which] : kTokens) {
      const std::string token = name;
      // As ld.so reads them, a bare token ends where no name character follows,
      // so "$ORIGINAL" holds no $ORIGIN.
      if (element.compare(name_start, token.size(), token) != 0) continue;
      size_t end = name_start + token.size();
      if (braced) {
        if (end >= element.size() || element[end] != '}') continue;
        ++end;
      } else if (end < element.size() &&
                 (std::isalnum(static_cast<unsigned char>(element[end])) || element[end] == '_')) {
        continue;
      }
      if (which == 0) *used_origin = true;
      out += which == 0 ? origin : which == 1 ? config.lib : config.platform;
      i = end;
      matched = true;
      break;
    }
    if (!matched) return std::nullopt;
  }
  return out;
}

struct SearchDir {
  std::string dir;
  FoundVia via;
  bool origin_relative = false;
};

class Resolver {
 public:
  explicit Resolver(const LoaderConfig& config) : config_(config) {}

  absl::StatusOr<Closure> Run(const std::string& executable) {
    TP_ASSIGN_OR_RETURN(conf_dirs_, ReadLdSoConf(config_.root, config_.ld_so_conf));
    Closure closure;
    TP_ASSIGN_OR_RETURN(closure.executable,
                        Load(executable, executable, "", "", FoundVia::kExecutable));
    machine_ = closure.executable.elf.machine;
    if (!closure.executable.elf.interpreter.empty()) {
      const std::string& interp = closure.executable.elf.interpreter;
      TP_ASSIGN_OR_RETURN(ResolvedObject object,
                          Load(interp, interp, "", executable, FoundVia::kInterpreter));
      if (!object.elf.soname.empty()) loaded_names_.insert(object.elf.soname);
      loaded_names_.insert(interp);
      closure.interpreter = std::move(object);
    }
    // objects_[0] is the executable; loader_[i] is the index of the object that loaded i.
    objects_.push_back(&closure.executable);
    loaders_.push_back(-1);
    origins_.push_back(DirectoryOf(closure.executable.walk.target));
    std::deque<ResolvedObject> libraries;  // stable addresses for objects_
    // Breadth first, as ld.so loads: each DT_NEEDED name is looked up once, and
    // the first object loaded under a name (or soname) serves every later request.
    for (size_t i = 0; i < objects_.size(); ++i) {
      const std::vector<std::string> needed = objects_[i]->elf.needed;
      const std::string requester = objects_[i]->path;
      for (const std::string& name : needed) {
        if (loaded_names_.count(name) != 0) continue;
        TP_ASSIGN_OR_RETURN(ResolvedObject object, Find(name, static_cast<int>(i), requester));
        loaded_names_.insert(name);
        if (!object.elf.soname.empty()) loaded_names_.insert(object.elf.soname);
        libraries.push_back(std::move(object));
        objects_.push_back(&libraries.back());
        loaders_.push_back(static_cast<int>(i));
        origins_.push_back(DirectoryOf(libraries.back().path));
      }
    }
    closure.libraries.assign(libraries.begin(), libraries.end());
    return closure;
  }

 private:
  absl::StatusOr<ResolvedObject> Load(const std::string& name, const std::string& path,
                                      const std::string& search_dir, const std::string& needed_by,
                                      FoundVia via) {
    ResolvedObject object;
    object.name = name;
    object.path = path;
    object.search_dir = search_dir;
    object.via = via;
    object.needed_by = needed_by;
    TP_ASSIGN_OR_RETURN(object.walk, WalkPath(config_.root, path));
    TP_ASSIGN_OR_RETURN(object.elf, ReadElfFile(HostPath(config_.root, object.walk.target)));
    return object;
  }

  void AddList(const std::string& list, int object, FoundVia via, std::vector<SearchDir>* out) {
    for (const std::string& element : SplitList(list, ":")) {
      if (element.empty()) continue;
      bool used_origin = false;
      std::optional<std::string> dir =
          ExpandTokens(element, origins_[static_cast<size_t>(object)], config_, &used_origin);
      if (dir) out->push_back(SearchDir{*dir, via, used_origin});
    }
  }

  std::vector<SearchDir> SearchDirs(int requester) {
    std::vector<SearchDir> dirs;
    const ElfFile& elf = objects_[static_cast<size_t>(requester)]->elf;
    // glibc's order (ld.so(8)): DT_RPATH of the requester, then of the object
    // that loaded it, up to the executable (none if the requester has a
    // DT_RUNPATH, and only objects without one count); then LD_LIBRARY_PATH,
    // the requester's own RUNPATH (not inherited), the cache, the defaults.
    if (!elf.has_runpath) {
      for (int l = requester; l >= 0; l = loaders_[static_cast<size_t>(l)]) {
        const ElfFile& e = objects_[static_cast<size_t>(l)]->elf;
        if (e.has_rpath && !e.has_runpath) AddList(e.rpath, l, FoundVia::kRpath, &dirs);
      }
    }
    for (const std::string& dir : config_.ld_library_path) {
      if (!dir.empty()) dirs.push_back(SearchDir{dir, FoundVia::kLdLibraryPath});
    }
    if (elf.has_runpath) AddList(elf.runpath, requester, FoundVia::kRunpath, &dirs);
    // -z nodeflib (DF_1_NODEFLIB) skips the cache and the default dirs alike.
    if (!elf.no_default_lib) {
      for (const std::string& dir : conf_dirs_) dirs.push_back(SearchDir{dir, FoundVia::kLdSoConf});
      for (const std::string& dir : config_.default_dirs) {
        dirs.push_back(SearchDir{dir, FoundVia::kDefaultDir});
      }
    }
    return dirs;
  }

  absl::StatusOr<ResolvedObject> Find(const std::string& name, int requester,
                                      const std::string& requester_path) {
    if (name.find('/') != std::string::npos) {
      if (name[0] != '/') {
        return absl::InvalidArgumentError(
            fmt::format("{} (needed by {}) is a relative path: it depends on the working directory",
                        name, requester_path));
      }
      return Load(name, name, "", requester_path, FoundVia::kPath);
    }
    std::vector<std::string> tried;
    for (const SearchDir& dir : SearchDirs(requester)) {
      tried.push_back(dir.dir);
      const std::string path = JoinDir(dir.dir, name);
      absl::StatusOr<ResolvedObject> object = Load(name, path, dir.dir, requester_path, dir.via);
      if (!object.ok()) continue;  // missing, or not an ELF file: ld.so goes on
      // As ld.so does, a candidate of another machine (an i386 library in a
      // multilib dir) is passed over and the search goes on; so is one with no
      // dynamic section, which cannot be a shared library.
      if (object->elf.machine != machine_ || !object->elf.has_dynamic) continue;
      object->origin_relative = dir.origin_relative;
      return object;
    }
    return absl::NotFoundError(fmt::format("{} (needed by {}) not found in: {}", name,
                                           requester_path, absl::StrJoin(tried, ", ")));
  }

  const LoaderConfig& config_;
  std::vector<std::string> conf_dirs_;
  uint16_t machine_ = 0;
  std::set<std::string> loaded_names_;
  std::vector<const ResolvedObject*> objects_;
  std::vector<int> loaders_;
  std::vector<std::string> origins_;
};

absl::Status ReadConfInto(const std::filesystem::path& root, const std::string& conf, int depth,
                          std::vector<std::string>* dirs) {
  // A bound so an include cycle (a conf file including itself) ends with an
  // error instead of recursing forever.
  if (depth > 8) {
    return absl::InvalidArgumentError(fmt::format("{}: includes nest deeper than 8", conf));
  }
  absl::StatusOr<std::string> text = base::ReadFile(HostPath(root, conf));
  if (!text.ok()) {
    return text.status().code() == absl::StatusCode::kNotFound ? absl::OkStatus() : text.status();
  }
  std::istringstream lines(*text);
  std::string line;
  while (std::getline(lines, line)) {
    line = line.substr(0, line.find('#'));
    std::vector<std::string> words;
    for (const std::string& word : SplitList(line, " \t\r,:")) {
      if (!word.empty()) words.push_back(word);
    }
    // An ldconfig `hwcap` line declares a capability, not a directory.
    if (words.empty() || words[0] == "hwcap") continue;
    if (words[0] == "include") {
      for (size_t i = 1; i < words.size(); ++i) {
        std::string pattern = words[i][0] == '/' ? words[i] : JoinDir(DirectoryOf(conf), words[i]);
        const std::string host_pattern = HostPath(root, pattern).string();
        glob_t matches{};
        if (::glob(host_pattern.c_str(), 0, nullptr, &matches) == 0) {
          // Matches come back as host paths; the root's prefix is cut so a nested
          // include resolves inside the image's root like any other.
          const size_t prefix = HostPath(root, "/").string().size() - 1;
          for (size_t m = 0; m < matches.gl_pathc; ++m) {
            std::string match = std::string(matches.gl_pathv[m]).substr(prefix);
            absl::Status s = ReadConfInto(root, match, depth + 1, dirs);
            if (!s.ok()) {
              ::globfree(&matches);
              return s;
            }
          }
        }
        ::globfree(&matches);
      }
      continue;
    }
    for (std::string& word : words) {
      word = word.substr(0, word.find('='));  // "DIR=TYPE" (libc5 syntax)
      if (!word.empty() && word[0] == '/') dirs->push_back(word);
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<LoaderConfig> DebianLoaderConfig(uint16_t machine) {
  std::string triple;
  std::string platform;
  if (machine == EM_X86_64) {
    triple = "x86_64-linux-gnu";
    platform = "x86_64";
  } else if (machine == EM_AARCH64) {
    triple = "aarch64-linux-gnu";
    platform = "aarch64";
  } else {
    return absl::InvalidArgumentError(
        fmt::format("ELF machine {} is not supported; expected x86-64 or aarch64", machine));
  }
  LoaderConfig config;
  config.default_dirs = {"/lib/" + triple, "/usr/lib/" + triple, "/lib", "/usr/lib"};
  config.lib = "lib/" + triple;
  config.platform = platform;
  return config;
}

absl::StatusOr<std::vector<std::string>> ReadLdSoConf(const std::filesystem::path& root,
                                                      const std::string& conf) {
  std::vector<std::string> dirs;
  if (conf.empty()) return dirs;
  TP_RETURN_IF_ERROR(ReadConfInto(root, conf, 0, &dirs));
  std::vector<std::string> unique;
  std::set<std::string> seen;
  for (std::string& dir : dirs) {
    if (seen.insert(dir).second) unique.push_back(std::move(dir));
  }
  return unique;
}

absl::StatusOr<Closure> ResolveClosure(const std::string& executable, const LoaderConfig& config) {
  return Resolver(config).Run(executable);
}

}  // namespace trainpkg::packager::bundle
