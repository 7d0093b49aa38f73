#include "sdk/hptune/trial_args.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::hptune {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

jobspec::StudySpec Study() {
  jobspec::StudySpec spec;
  spec.parameters.push_back(
      {"learning_rate", jobspec::DoubleValueSpec{1e-4, 0.1, {}}, jobspec::ScaleType::kLog, {}});
  spec.parameters.push_back(
      {"num_units", jobspec::IntegerValueSpec{16, 256, {}}, jobspec::ScaleType::kUnspecified, {}});
  jobspec::ParameterSpec optimizer{"optimizer",
                                   jobspec::CategoricalValueSpec{{"sgd", "adam"}, {}},
                                   jobspec::ScaleType::kUnspecified,
                                   {}};
  optimizer.conditional_parameter_specs.push_back(
      {jobspec::ParentCategoricalValues{{"sgd"}},
       {"batch", jobspec::DiscreteValueSpec{{32, 256}, {}}, jobspec::ScaleType::kUnspecified, {}}});
  spec.parameters.push_back(optimizer);
  return spec;
}

TEST(TrialArgsTest, FormatsEachTypeAsVertexDoes) {
  absl::StatusOr<std::vector<std::string>> args =
      TrialArgs(Study(), {{"learning_rate", 0.0031622776601683794},
                          {"num_units", 64.0},
                          {"optimizer", std::string("sgd")},
                          {"batch", 256.0}});
  ASSERT_THAT(args, IsOk());
  EXPECT_THAT(*args, ElementsAre("--learning_rate=0.0031622776601683794", "--num_units=64",
                                 "--optimizer=sgd", "--batch=256.0"));
}

TEST(TrialArgsTest, DoublesRoundTrip) {
  const jobspec::ParameterSpec& lr = Study().parameters[0];
  for (double value : {0.1, 1e-4, 1.0 / 3.0, 2.5e-7, 1.0, 12345.678901234567}) {
    absl::StatusOr<std::string> text = FormatParameterValue(lr, value);
    ASSERT_THAT(text, IsOk());
    EXPECT_EQ(std::stod(*text), value) << *text;
  }
  EXPECT_EQ(*FormatParameterValue(lr, 1.0), "1.0");
  EXPECT_EQ(*FormatParameterValue(lr, 1e-5), "1e-05");
}

TEST(TrialArgsTest, RejectsValuesThatDoNotFit) {
  const jobspec::StudySpec spec = Study();
  EXPECT_THAT(std::string(FormatParameterValue(spec.parameters[1], 2.5).status().message()),
              HasSubstr("parameter 'num_units': expected a whole number, got the number 2.5"));
  EXPECT_THAT(
      std::string(FormatParameterValue(spec.parameters[0], std::string("x")).status().message()),
      HasSubstr("parameter 'learning_rate': expected a number, got the string 'x'"));
  EXPECT_THAT(std::string(FormatParameterValue(spec.parameters[2], 1.0).status().message()),
              HasSubstr("expected a categorical value"));
  EXPECT_THAT(std::string(TrialArgs(spec, {{"lr", 0.1}}).status().message()),
              HasSubstr("trial parameter 'lr' is not a parameter of the study"));
}

}  // namespace
}  // namespace trainpkg::sdk::hptune
