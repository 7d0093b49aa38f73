// Reading what a test's subject wrote.
#ifndef TRAINPKG_TESTS_TEST_UTIL_FILE_H_
#define TRAINPKG_TESTS_TEST_UTIL_FILE_H_

#include <filesystem>
#include <string>

namespace trainpkg::testing {

// The bytes of `path`; "" when it cannot be read (the assertion on the
// content then says what was expected).
std::string Slurp(const std::filesystem::path& path);

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_FILE_H_
