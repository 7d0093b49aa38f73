// Running an unpacked OCI image under runc, as the interop tests do to see
// that an image really starts: `umoci unpack` makes the bundle, this runs it.
#ifndef TRAINPKG_TESTS_TEST_UTIL_RUNC_BUNDLE_H_
#define TRAINPKG_TESTS_TEST_UTIL_RUNC_BUNDLE_H_

#include <filesystem>
#include <string>
#include <vector>

#include "tests/test_util/shell.h"

namespace trainpkg::testing {

// Runs the bundle in `bundle_dir` (as `umoci unpack` leaves it) with
// `runc run` as container `id`, and deletes the container after. Its
// config.json is first rewritten to run here: no terminal, no network
// namespace of its own (a test has none to set up), and the process's
// arguments replaced by `args` unless empty. Returns runc's exit code and
// output.
ShellResult RunBundleWithRunc(const std::filesystem::path& bundle_dir, const std::string& id,
                              const std::vector<std::string>& args = {});

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_RUNC_BUNDLE_H_
