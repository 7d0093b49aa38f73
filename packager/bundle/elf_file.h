// The parts of an ELF file the dynamic loader uses to find libraries, read
// with the system's <elf.h> definitions (no third-party library: the loader
// needs five fields, and reading them is a bounded walk of two tables).
//
//   TP_ASSIGN_OR_RETURN(ElfFile elf, ReadElfFile("/usr/bin/app"));
//   elf.interpreter  // "/lib64/ld-linux-x86-64.so.2" (PT_INTERP), "" if none
//   elf.needed       // DT_NEEDED, in order
//
// Only 64-bit little-endian ELF (x86-64, aarch64) is read. Errors:
// InvalidArgument naming the file when it is not such an ELF file or its
// tables point outside the file; the errno code when it cannot be read.
// Thread-safe (no shared state).
#ifndef TRAINPKG_PACKAGER_BUNDLE_ELF_FILE_H_
#define TRAINPKG_PACKAGER_BUNDLE_ELF_FILE_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::packager::bundle {

struct ElfFile {
  uint16_t machine = 0;     // e_machine (EM_X86_64, EM_AARCH64)
  uint16_t type = 0;        // e_type (ET_EXEC, ET_DYN)
  std::string interpreter;  // PT_INTERP, "" when absent (static or a library)
  std::vector<std::string> needed;
  std::string soname;   // DT_SONAME, "" when absent
  std::string rpath;    // DT_RPATH, unexpanded ("$ORIGIN/../lib:/opt/x")
  std::string runpath;  // DT_RUNPATH, unexpanded
  bool has_runpath = false;
  bool has_rpath = false;
  bool no_default_lib = false;  // DF_1_NODEFLIB
  bool has_dynamic = false;     // PT_DYNAMIC present (false: statically linked)
};

absl::StatusOr<ElfFile> ReadElfFile(const std::filesystem::path& path);

}  // namespace trainpkg::packager::bundle

#endif  // TRAINPKG_PACKAGER_BUNDLE_ELF_FILE_H_
