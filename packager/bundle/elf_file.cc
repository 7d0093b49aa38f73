#include "packager/bundle/elf_file.h"

#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "base/file_util.h"
#include "base/unique_fd.h"
#include "fmt/format.h"

namespace trainpkg::packager::bundle {
namespace {

class FileReader {
 public:
  explicit FileReader(const std::filesystem::path& path) : path_(path) {}

  absl::Status Open() {
    fd_.Reset(::open(path_.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd_.valid()) return base::ErrnoToStatus(errno, fmt::format("opening {}", path_.string()));
    struct stat st;
    if (::fstat(fd_.get(), &st) != 0) {
      return base::ErrnoToStatus(errno, fmt::format("stat {}", path_.string()));
    }
    size_ = static_cast<uint64_t>(st.st_size);
    return absl::OkStatus();
  }

  uint64_t size() const { return size_; }

  // Sizes come from the file: each is checked against the file before a
  // buffer of that size is allocated for it.
  absl::Status CheckRange(uint64_t offset, uint64_t length) const {
    if (offset > size_ || length > size_ - offset) {
      return Invalid(fmt::format("{} bytes at offset {} lie outside the file", length, offset));
    }
    return absl::OkStatus();
  }

  absl::Status Read(uint64_t offset, void* out, uint64_t length) const {
    if (absl::Status in_file = CheckRange(offset, length); !in_file.ok()) return in_file;
    auto* bytes = static_cast<char*>(out);
    while (length > 0) {
      ssize_t n = ::pread(fd_.get(), bytes, length, static_cast<off_t>(offset));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return base::ErrnoToStatus(errno, fmt::format("reading {}", path_.string()));
      if (n == 0) return Invalid("the file ended early");
      bytes += n;
      offset += static_cast<uint64_t>(n);
      length -= static_cast<uint64_t>(n);
    }
    return absl::OkStatus();
  }

  absl::Status Invalid(const std::string& what) const {
    return absl::InvalidArgumentError(
        fmt::format("{}: not a readable 64-bit little-endian ELF file: {}", path_.string(), what));
  }

 private:
  std::filesystem::path path_;
  base::UniqueFd fd_;
  uint64_t size_ = 0;
};

}  // namespace

absl::StatusOr<ElfFile> ReadElfFile(const std::filesystem::path& path) {
  FileReader file(path);
  if (absl::Status opened = file.Open(); !opened.ok()) return opened;
  Elf64_Ehdr header;
  if (file.size() < sizeof(header)) return file.Invalid("shorter than an ELF header");
  if (absl::Status s = file.Read(0, &header, sizeof(header)); !s.ok()) return s;
  if (std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0) return file.Invalid("no ELF magic");
  if (header.e_ident[EI_CLASS] != ELFCLASS64) return file.Invalid("not ELFCLASS64");
  if (header.e_ident[EI_DATA] != ELFDATA2LSB) return file.Invalid("not little-endian");
  if (header.e_phentsize != sizeof(Elf64_Phdr)) return file.Invalid("bad e_phentsize");

  ElfFile elf;
  elf.machine = header.e_machine;
  elf.type = header.e_type;
  if (absl::Status s = file.CheckRange(header.e_phoff, uint64_t{header.e_phnum} * sizeof(Elf64_Phdr));
      !s.ok()) {
    return s;
  }
  std::vector<Elf64_Phdr> phdrs(header.e_phnum);
  if (absl::Status s = file.Read(header.e_phoff, phdrs.data(), phdrs.size() * sizeof(Elf64_Phdr));
      !s.ok()) {
    return s;
  }
  const Elf64_Phdr* dynamic = nullptr;
  for (const Elf64_Phdr& ph : phdrs) {
    if (ph.p_type == PT_INTERP) {
      // A loader's path; the kernel refuses one longer than a page.
      if (ph.p_filesz > 4096) return file.Invalid("PT_INTERP is longer than 4096 bytes");
      std::string interp(ph.p_filesz, '\0');
      if (absl::Status s = file.Read(ph.p_offset, interp.data(), interp.size()); !s.ok()) return s;
      elf.interpreter = interp.c_str();  // drops the terminating NUL
    } else if (ph.p_type == PT_DYNAMIC) {
      dynamic = &ph;
    }
  }
  if (dynamic == nullptr) return elf;
  elf.has_dynamic = true;

  if (absl::Status s = file.CheckRange(dynamic->p_offset, dynamic->p_filesz); !s.ok()) return s;
  std::vector<Elf64_Dyn> entries(dynamic->p_filesz / sizeof(Elf64_Dyn));
  if (absl::Status s =
          file.Read(dynamic->p_offset, entries.data(), entries.size() * sizeof(Elf64_Dyn));
      !s.ok()) {
    return s;
  }
  uint64_t strtab_addr = 0;
  uint64_t strtab_size = 0;
  for (const Elf64_Dyn& d : entries) {
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag == DT_STRTAB) strtab_addr = d.d_un.d_ptr;
    if (d.d_tag == DT_STRSZ) strtab_size = d.d_un.d_val;
    if (d.d_tag == DT_FLAGS_1 && (d.d_un.d_val & DF_1_NODEFLIB) != 0) elf.no_default_lib = true;
  }
  // DT_STRTAB is a virtual address: map it to a file offset through PT_LOAD.
  uint64_t strtab_offset = 0;
  bool mapped = false;
  for (const Elf64_Phdr& ph : phdrs) {
    if (ph.p_type == PT_LOAD && strtab_addr >= ph.p_vaddr &&
        strtab_addr - ph.p_vaddr < ph.p_filesz) {
      strtab_offset = strtab_addr - ph.p_vaddr + ph.p_offset;
      mapped = true;
      break;
    }
  }
  if (!mapped) return file.Invalid("DT_STRTAB is in no loadable segment");
  if (absl::Status s = file.CheckRange(strtab_offset, strtab_size); !s.ok()) return s;
  std::string strtab(strtab_size, '\0');
  if (absl::Status s = file.Read(strtab_offset, strtab.data(), strtab.size()); !s.ok()) return s;
  auto str = [&](uint64_t index) -> absl::StatusOr<std::string> {
    if (index >= strtab.size()) return file.Invalid("a dynamic string lies outside DT_STRTAB");
    return std::string(strtab.c_str() + index);
  };
  // A second pass: DT_STRTAB may come after the entries that index into it.
  for (const Elf64_Dyn& d : entries) {
    if (d.d_tag == DT_NULL) break;
    if (d.d_tag != DT_NEEDED && d.d_tag != DT_SONAME && d.d_tag != DT_RPATH &&
        d.d_tag != DT_RUNPATH) {
      continue;
    }
    absl::StatusOr<std::string> value = str(d.d_un.d_val);
    if (!value.ok()) return value.status();
    switch (d.d_tag) {
      case DT_NEEDED:
        elf.needed.push_back(*value);
        break;
      case DT_SONAME:
        elf.soname = *value;
        break;
      case DT_RPATH:
        elf.rpath = *value;
        elf.has_rpath = true;
        break;
      case DT_RUNPATH:
        elf.runpath = *value;
        elf.has_runpath = true;
        break;
    }
  }
  return elf;
}

}  // namespace trainpkg::packager::bundle
