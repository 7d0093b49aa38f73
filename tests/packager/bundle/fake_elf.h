// Writes minimal 64-bit ELF files (headers, PT_INTERP, PT_DYNAMIC and a
// string table; no code) so loader-resolution tests can build any tree of
// executables and libraries in a temp dir.
#ifndef TRAINPKG_TESTS_PACKAGER_BUNDLE_FAKE_ELF_H_
#define TRAINPKG_TESTS_PACKAGER_BUNDLE_FAKE_ELF_H_

#include <elf.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace trainpkg::packager::bundle::testing {

struct FakeElf {
  uint16_t machine = EM_X86_64;
  uint16_t type = ET_DYN;
  std::string interpreter{};  // "": no PT_INTERP
  std::vector<std::string> needed{};
  std::string soname{};
  std::string rpath{};    // "": none
  std::string runpath{};  // "": none
  bool nodeflib = false;
};

// Writes `elf` to `path` (parents created).
void WriteFakeElf(const std::filesystem::path& path, const FakeElf& elf);

// A merged-/usr tree under `root` as Debian 12 has it: /lib -> usr/lib,
// /lib64 -> usr/lib64, and the x86-64 loader (a fake ELF) in
// usr/lib/x86_64-linux-gnu with its usr/lib64 link.
void MakeMergedUsrRoot(const std::filesystem::path& root);

}  // namespace trainpkg::packager::bundle::testing

#endif  // TRAINPKG_TESTS_PACKAGER_BUNDLE_FAKE_ELF_H_
