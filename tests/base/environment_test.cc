#include "base/environment.h"

#include <cstdlib>

#include "gtest/gtest.h"

namespace trainpkg::base {
namespace {

TEST(MapEnvironmentTest, DistinguishesUnsetFromEmpty) {
  MapEnvironment env({{"EMPTY", ""}, {"SET", "v"}});
  EXPECT_EQ(env.Get("SET"), "v");
  EXPECT_EQ(env.Get("EMPTY"), "");
  EXPECT_EQ(env.Get("UNSET"), std::nullopt);
}

TEST(ProcessEnvironmentTest, ReadsRealVariables) {
  ::setenv("TRAINPKG_ENV_TEST_VAR", "abc", 1);
  EXPECT_EQ(ProcessEnvironment().Get("TRAINPKG_ENV_TEST_VAR"), "abc");
  EXPECT_EQ(SnapshotProcessEnvironment().at("TRAINPKG_ENV_TEST_VAR"), "abc");
  ::unsetenv("TRAINPKG_ENV_TEST_VAR");
  EXPECT_EQ(ProcessEnvironment().Get("TRAINPKG_ENV_TEST_VAR"), std::nullopt);
}

}  // namespace
}  // namespace trainpkg::base
