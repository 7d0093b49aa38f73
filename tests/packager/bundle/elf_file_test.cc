// ReadElfFile on files whose headers lie about sizes: every size read from
// the file is checked against the file before a buffer is allocated for it,
// so a hostile binary handed to `trainpkg build --bundle-libs` gets a clear
// InvalidArgument, not a multi-exabyte allocation.
#include "packager/bundle/elf_file.h"

#include <elf.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/packager/bundle/fake_elf.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::StatusIs;

namespace trainpkg::packager::bundle {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ElfFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::FakeElf elf;
    elf.interpreter = "/lib64/ld-linux-x86-64.so.2";
    elf.needed = {"libc.so.6"};
    elf.soname = "libx.so.1";
    testing::WriteFakeElf(path_, elf);
    std::ifstream in(path_, std::ios::binary);
    bytes_.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }

  Elf64_Ehdr Header() const {
    Elf64_Ehdr header;
    std::memcpy(&header, bytes_.data(), sizeof(header));
    return header;
  }
  // Offset of the first program header of `type`.
  size_t PhdrOffset(uint32_t type) const {
    const Elf64_Ehdr header = Header();
    for (size_t i = 0; i < header.e_phnum; ++i) {
      Elf64_Phdr ph;
      const size_t at = header.e_phoff + i * sizeof(Elf64_Phdr);
      std::memcpy(&ph, bytes_.data() + at, sizeof(ph));
      if (ph.p_type == type) return at;
    }
    ADD_FAILURE() << "no program header of type " << type;
    return 0;
  }
  void Patch(size_t at, uint64_t value) { std::memcpy(bytes_.data() + at, &value, sizeof(value)); }
  absl::StatusOr<ElfFile> Reread() {
    std::ofstream(path_, std::ios::binary | std::ios::trunc) << bytes_;
    return ReadElfFile(path_);
  }

  ::trainpkg::testing::TempDir dir_;
  const fs::path path_ = dir_ / "libx.so.1";
  std::string bytes_;
};

TEST_F(ElfFileTest, ReadsTheFakeElfWhole) {
  absl::StatusOr<ElfFile> elf = ReadElfFile(path_);
  ASSERT_THAT(elf, IsOk());
  EXPECT_EQ(elf->interpreter, "/lib64/ld-linux-x86-64.so.2");
  EXPECT_THAT(elf->needed, ::testing::ElementsAre("libc.so.6"));
  EXPECT_EQ(elf->soname, "libx.so.1");
}

TEST_F(ElfFileTest, AnInterpreterSizeBeyondAPageIsRefused) {
  Patch(PhdrOffset(PT_INTERP) + offsetof(Elf64_Phdr, p_filesz), uint64_t{1} << 62);
  EXPECT_THAT(Reread(), StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("PT_INTERP")));
}

TEST_F(ElfFileTest, ADynamicSegmentBeyondTheFileIsRefused) {
  Patch(PhdrOffset(PT_DYNAMIC) + offsetof(Elf64_Phdr, p_filesz), uint64_t{1} << 62);
  EXPECT_THAT(Reread(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lie outside the file")));
}

TEST_F(ElfFileTest, AStringTableSizeBeyondTheFileIsRefused) {
  Elf64_Phdr dynamic;
  std::memcpy(&dynamic, bytes_.data() + PhdrOffset(PT_DYNAMIC), sizeof(dynamic));
  bool patched = false;
  for (size_t at = dynamic.p_offset; at + sizeof(Elf64_Dyn) <= dynamic.p_offset + dynamic.p_filesz;
       at += sizeof(Elf64_Dyn)) {
    Elf64_Dyn entry;
    std::memcpy(&entry, bytes_.data() + at, sizeof(entry));
    if (entry.d_tag == DT_STRSZ) {
      Patch(at + offsetof(Elf64_Dyn, d_un), uint64_t{1} << 62);
      patched = true;
    }
  }
  ASSERT_TRUE(patched) << "the fake ELF has a DT_STRSZ";
  EXPECT_THAT(Reread(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lie outside the file")));
}

TEST_F(ElfFileTest, ProgramHeadersBeyondTheFileAreRefused) {
  Patch(offsetof(Elf64_Ehdr, e_phoff), uint64_t{1} << 40);
  EXPECT_THAT(Reread(),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("lie outside the file")));
}

}  // namespace
}  // namespace trainpkg::packager::bundle
