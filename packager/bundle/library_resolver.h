// Finds the shared-library closure of an executable the way glibc's dynamic
// loader (ld.so) does, without running it:
//
//   for each DT_NEEDED name N of each loaded object L, in load order (BFS),
//   unless an object with that name or DT_SONAME is already loaded:
//   - N with a '/': that path;
//   - else the first directory holding an ELF file N of the executable's
//     class and machine, searched in this order:
//     1. DT_RPATH of L, then of the object that loaded L, and so on up to the
//        executable (only objects without DT_RUNPATH; only when L has none);
//     2. LD_LIBRARY_PATH (only `ld_library_path` below, never the caller's
//        environment);
//     3. DT_RUNPATH of L;
//     4. the directories of ld.so.conf (what ldconfig puts in
//        /etc/ld.so.cache; `include` globs followed), unless L has
//        DF_1_NODEFLIB;
//     5. the default directories, unless L has DF_1_NODEFLIB.
//   In RPATH/RUNPATH, $ORIGIN is the directory of L (for the executable:
//   its canonical path, as the kernel gives it; for a library: the
//   directory it was found in), $LIB and $PLATFORM are `lib` and `platform`;
//   an element with another $TOKEN or an empty one is skipped, as glibc does.
//   glibc-hwcaps and legacy hwcap subdirectories are not searched: Debian
//   installs no libraries there.
// The interpreter (PT_INTERP) is part of the closure and counts as loaded
// under its DT_SONAME.
//
// Every path is in the namespace of `root` (the host "/" or a sysroot). Not
// thread-safe per config; configs are plain values.
#ifndef TRAINPKG_PACKAGER_BUNDLE_LIBRARY_RESOLVER_H_
#define TRAINPKG_PACKAGER_BUNDLE_LIBRARY_RESOLVER_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/bundle/elf_file.h"
#include "packager/bundle/path_walk.h"

namespace trainpkg::packager::bundle {

struct LoaderConfig {
  std::filesystem::path root = "/";
  std::vector<std::string> default_dirs;       // searched last
  std::string ld_so_conf = "/etc/ld.so.conf";  // "": none
  std::string lib;                             // $LIB
  std::string platform;                        // $PLATFORM
  std::vector<std::string> ld_library_path;    // empty: LD_LIBRARY_PATH unset
};

// Debian's glibc for `machine` (EM_X86_64: multiarch x86_64-linux-gnu,
// $LIB "lib/x86_64-linux-gnu", $PLATFORM "x86_64"; EM_AARCH64 likewise):
// default dirs /lib/TRIPLE, /usr/lib/TRIPLE, /lib, /usr/lib (as
// `ld.so --help` lists them). InvalidArgument for another machine.
absl::StatusOr<LoaderConfig> DebianLoaderConfig(uint16_t machine);

// How the loader found an object.
enum class FoundVia {
  kExecutable,     // the binary itself
  kInterpreter,    // PT_INTERP
  kPath,           // a DT_NEEDED with '/'
  kRpath,          // step 1
  kLdLibraryPath,  // step 2
  kRunpath,        // step 3
  kLdSoConf,       // step 4
  kDefaultDir,     // step 5
};

struct ResolvedObject {
  std::string name;        // the DT_NEEDED entry (for the executable/interpreter: its path)
  std::string path;        // the path the loader opens ("DIR/NAME")
  std::string search_dir;  // DIR, as searched (expanded; "" for kExecutable/kInterpreter/kPath)
  FoundVia via = FoundVia::kDefaultDir;
  bool origin_relative = false;  // found through an RPATH/RUNPATH element with $ORIGIN
  std::string needed_by;         // path of the object that named it first ("" for the executable)
  PathWalk walk;                 // links from `path` to the file itself
  ElfFile elf;
};

struct Closure {
  ResolvedObject executable;
  std::optional<ResolvedObject> interpreter;  // absent for static executables
  std::vector<ResolvedObject> libraries;      // load order, interpreter excluded
};

// The closure of `executable` (an absolute path in the root's namespace).
// Errors: NotFound "NAME (needed by PATH) not found in: DIR, DIR, …" naming
// every directory searched; the ELF reader's errors for the executable or
// interpreter (a library candidate that is not a matching ELF file is
// skipped, as ld.so does).
absl::StatusOr<Closure> ResolveClosure(const std::string& executable, const LoaderConfig& config);

// The directories ld.so.conf names, in order, includes expanded (sorted glob
// matches); a missing file gives none. Errors: only I/O errors other than
// NotFound.
absl::StatusOr<std::vector<std::string>> ReadLdSoConf(const std::filesystem::path& root,
                                                      const std::string& conf);

}  // namespace trainpkg::packager::bundle

#endif  // TRAINPKG_PACKAGER_BUNDLE_LIBRARY_RESOLVER_H_
