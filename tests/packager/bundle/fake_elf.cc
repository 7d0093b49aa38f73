#include "tests/packager/bundle/fake_elf.h"

#include <cstring>
#include <fstream>

namespace trainpkg::packager::bundle::testing {

void WriteFakeElf(const std::filesystem::path& path, const FakeElf& elf) {
  std::string strtab(1, '\0');
  auto add = [&](const std::string& s) {
    uint64_t offset = strtab.size();
    strtab += s;
    strtab.push_back('\0');
    return offset;
  };
  std::vector<Elf64_Dyn> dyn;
  for (const std::string& n : elf.needed) dyn.push_back({DT_NEEDED, {add(n)}});
  if (!elf.soname.empty()) dyn.push_back({DT_SONAME, {add(elf.soname)}});
  if (!elf.rpath.empty()) dyn.push_back({DT_RPATH, {add(elf.rpath)}});
  if (!elf.runpath.empty()) dyn.push_back({DT_RUNPATH, {add(elf.runpath)}});
  if (elf.nodeflib) dyn.push_back({DT_FLAGS_1, {DF_1_NODEFLIB}});
  const size_t phnum = elf.interpreter.empty() ? 2 : 3;
  const uint64_t interp_off = sizeof(Elf64_Ehdr) + phnum * sizeof(Elf64_Phdr);
  const uint64_t interp_size = elf.interpreter.empty() ? 0 : elf.interpreter.size() + 1;
  const uint64_t strtab_off = interp_off + interp_size;
  const uint64_t dyn_off = (strtab_off + strtab.size() + 7) & ~uint64_t{7};
  dyn.push_back({DT_STRTAB, {strtab_off}});  // vaddr == offset: one PT_LOAD at 0
  dyn.push_back({DT_STRSZ, {strtab.size()}});
  dyn.push_back({DT_NULL, {0}});
  const uint64_t total = dyn_off + dyn.size() * sizeof(Elf64_Dyn);

  std::string bytes(total, '\0');
  Elf64_Ehdr eh{};
  std::memcpy(eh.e_ident, ELFMAG, SELFMAG);
  eh.e_ident[EI_CLASS] = ELFCLASS64;
  eh.e_ident[EI_DATA] = ELFDATA2LSB;
  eh.e_ident[EI_VERSION] = EV_CURRENT;
  eh.e_type = elf.type;
  eh.e_machine = elf.machine;
  eh.e_version = EV_CURRENT;
  eh.e_phoff = sizeof(Elf64_Ehdr);
  eh.e_ehsize = sizeof(Elf64_Ehdr);
  eh.e_phentsize = sizeof(Elf64_Phdr);
  eh.e_phnum = static_cast<uint16_t>(phnum);
  std::memcpy(bytes.data(), &eh, sizeof(eh));
  std::vector<Elf64_Phdr> ph;
  Elf64_Phdr load{};
  load.p_type = PT_LOAD;
  load.p_filesz = load.p_memsz = total;
  ph.push_back(load);
  if (!elf.interpreter.empty()) {
    Elf64_Phdr interp{};
    interp.p_type = PT_INTERP;
    interp.p_offset = interp.p_vaddr = interp_off;
    interp.p_filesz = interp_size;
    ph.push_back(interp);
  }
  Elf64_Phdr dynamic{};
  dynamic.p_type = PT_DYNAMIC;
  dynamic.p_offset = dynamic.p_vaddr = dyn_off;
  dynamic.p_filesz = dyn.size() * sizeof(Elf64_Dyn);
  ph.push_back(dynamic);
  std::memcpy(bytes.data() + sizeof(Elf64_Ehdr), ph.data(), ph.size() * sizeof(Elf64_Phdr));
  std::memcpy(bytes.data() + interp_off, elf.interpreter.c_str(), interp_size);
  std::memcpy(bytes.data() + strtab_off, strtab.data(), strtab.size());
  std::memcpy(bytes.data() + dyn_off, dyn.data(), dyn.size() * sizeof(Elf64_Dyn));
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

void MakeMergedUsrRoot(const std::filesystem::path& root) {
  namespace fs = std::filesystem;
  fs::create_directories(root / "usr/lib/x86_64-linux-gnu");
  fs::create_directories(root / "usr/lib64");
  fs::create_directory_symlink("usr/lib", root / "lib");
  fs::create_directory_symlink("usr/lib64", root / "lib64");
  WriteFakeElf(root / "usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
               {.soname = "ld-linux-x86-64.so.2"});
  fs::create_symlink("../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2",
                     root / "usr/lib64/ld-linux-x86-64.so.2");
}

}  // namespace trainpkg::packager::bundle::testing
