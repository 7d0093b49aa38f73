#include "tests/test_util/file.h"

#include <stdlib.h>

#include <cstdio>
#include <cstdlib>
#include <system_error>

#include "base/file_util.h"

namespace trainpkg::testing {

TempDir::TempDir() {
  const char* base = std::getenv("TEST_TMPDIR");
  std::string pattern =
      ((base != nullptr && *base != '\0') ? std::filesystem::path(base)
                                          : std::filesystem::temp_directory_path()) /
      "trainpkg_test.XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) std::abort();
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
}

std::string Slurp(const std::filesystem::path& path) { return base::ReadFile(path).value_or(""); }

int CountEntries(const std::filesystem::path& dir) {
  std::error_code ec;
  int entries = 0;
  for (std::filesystem::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    ++entries;
  }
  return entries;
}

void FlipByte(const std::filesystem::path& path, size_t offset) {
  std::filesystem::permissions(path, std::filesystem::perms::owner_write,
                               std::filesystem::perm_options::add);
  std::string bytes = Slurp(path);
  if (offset >= bytes.size()) {
    std::fprintf(stderr, "FlipByte: %s has %zu bytes, no byte %zu\n", path.c_str(), bytes.size(),
                 offset);
    std::abort();
  }
  bytes[offset] = static_cast<char>(bytes[offset] ^ 1);
  if (!base::WriteFileAtomic(path, bytes, base::FileSync::kNoSync).ok()) {
    std::fprintf(stderr, "FlipByte: cannot rewrite %s\n", path.c_str());
    std::abort();
  }
}

}  // namespace trainpkg::testing
