#include "tests/test_util/file.h"

#include <stdlib.h>

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

}  // namespace trainpkg::testing
