#include "sdk/internal/env_expansion.h"

#include "gtest/gtest.h"

namespace trainpkg::sdk::internal {
namespace {

const std::map<std::string, std::string> kDefined = {{"A", "alpha"}, {"EMPTY", ""}};

TEST(ExpandEnvValueTest, ReplacesDefinedReferences) {
  EXPECT_EQ(ExpandEnvValue("$(A)", kDefined), "alpha");
  EXPECT_EQ(ExpandEnvValue("x-$(A)-$(A)/y", kDefined), "x-alpha-alpha/y");
  EXPECT_EQ(ExpandEnvValue("[$(EMPTY)]", kDefined), "[]");
}

TEST(ExpandEnvValueTest, DoubleDollarEscapes) {
  EXPECT_EQ(ExpandEnvValue("$$(A)", kDefined), "$(A)");
  EXPECT_EQ(ExpandEnvValue("cost $$5", kDefined), "cost $5");
}

TEST(ExpandEnvValueTest, LeavesUnresolvableTextAlone) {
  EXPECT_EQ(ExpandEnvValue("$(MISSING)", kDefined), "$(MISSING)");
  EXPECT_EQ(ExpandEnvValue("$(A", kDefined), "$(A");
  EXPECT_EQ(ExpandEnvValue("$A and $", kDefined), "$A and $");
}

TEST(ApplyEnvVarsTest, LaterVariablesSeeEarlierOnesAndTheBase) {
  std::map<std::string, std::string> env = {{"CLOUD_ML_JOB_ID", "123"}};
  ApplyEnvVars({{"DIR", "/out/$(CLOUD_ML_JOB_ID)"},
                {"FILE", "$(DIR)/model"},
                {"LATER", "$(NEXT)"},
                {"NEXT", "n"}},
               env);
  EXPECT_EQ(env["DIR"], "/out/123");
  EXPECT_EQ(env["FILE"], "/out/123/model");
  EXPECT_EQ(env["LATER"], "$(NEXT)");
}

}  // namespace
}  // namespace trainpkg::sdk::internal
