// Parsing Dockerfile text in the dockerfile tests: the result of text that
// must parse, or the message of text that must not.
#ifndef TRAINPKG_TESTS_PACKAGER_DOCKERFILE_PARSE_TEST_UTIL_H_
#define TRAINPKG_TESTS_PACKAGER_DOCKERFILE_PARSE_TEST_UTIL_H_

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "packager/dockerfile/dockerfile.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::packager::dockerfile::testing {

// `text` parsed as "Dockerfile"; a failure fails the test (and gives an
// empty Dockerfile).
inline Dockerfile Parse(std::string_view text) {
  absl::StatusOr<Dockerfile> df = ParseDockerfile(text, "Dockerfile");
  EXPECT_THAT(df, ::trainpkg::testing::IsOk());
  return df.ok() ? *df : Dockerfile{};
}

// The InvalidArgument message of parsing `text` as "ctx/Dockerfile"; a
// success, or another code, fails the test.
inline std::string Error(std::string_view text) {
  absl::StatusOr<Dockerfile> df = ParseDockerfile(text, "ctx/Dockerfile");
  EXPECT_FALSE(df.ok());
  if (df.ok()) return "";
  EXPECT_EQ(df.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(df.status().message());
}

}  // namespace trainpkg::packager::dockerfile::testing

#endif  // TRAINPKG_TESTS_PACKAGER_DOCKERFILE_PARSE_TEST_UTIL_H_
