// Files in tests: a scratch directory, and reading what a test's subject wrote.
#ifndef TRAINPKG_TESTS_TEST_UTIL_FILE_H_
#define TRAINPKG_TESTS_TEST_UTIL_FILE_H_

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

namespace trainpkg::testing {

// A fresh directory under $TEST_TMPDIR (else the system temp directory),
// removed with everything in it when the object goes.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::filesystem::path& path() const { return path_; }
  std::filesystem::path operator/(std::string_view name) const { return path_ / name; }

 private:
  std::filesystem::path path_;
};

// The bytes of `path`; "" when it cannot be read (the assertion on the
// content then says what was expected).
std::string Slurp(const std::filesystem::path& path);

// How many entries `dir` holds directly (0 when it cannot be listed): what a
// test checks to see that nothing temporary was left behind.
int CountEntries(const std::filesystem::path& dir);

// Flips the lowest bit of the byte at `offset` of `path` in place (making the
// file writable first, as stored blobs are not), to damage it. Aborts the
// test binary when the file is shorter or cannot be rewritten.
void FlipByte(const std::filesystem::path& path, size_t offset);

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_FILE_H_
