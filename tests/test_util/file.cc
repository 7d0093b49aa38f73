#include "tests/test_util/file.h"

#include "base/file_util.h"

namespace trainpkg::testing {

std::string Slurp(const std::filesystem::path& path) { return base::ReadFile(path).value_or(""); }

}  // namespace trainpkg::testing
