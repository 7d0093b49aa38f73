// samples/hptune_digits end to end: `trainpkg hptune --config study.yaml`
// runs 6 trials of the digits trainer, 2 at a time; the best trial must beat
// the median trial, the results files exist, and `trainpkg jobs describe`
// shows the trials. Needs the digits file (fixture digits_data).
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/shell.h"

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

using trainpkg::testing::ShellResult;

ShellResult RunShell(const std::string& command) { return trainpkg::testing::Sh(command); }

std::string Quote(const fs::path& path) { return trainpkg::testing::ShellQuote(path.string()); }

TEST(HptuneDigitsSampleTest, BestTrialBeatsTheMedianTrial) {
  trainpkg::sdk::testing::TempDir dir;
  std::ifstream in(fs::path(HPTUNE_SAMPLE_SOURCE_DIR) / "study.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string config = text.str();
  const std::string image = "local:build/samples/hptune_digits/hptune_digits";
  const size_t at = config.find(image);
  ASSERT_NE(at, std::string::npos);
  config.replace(at, image.size(), std::string("local:") + HPTUNE_DIGITS);
  std::ofstream(dir.path() / "study.yaml") << config;

  const std::string env = "TRAINPKG_HOME=" + Quote(dir.path() / "home") +
                          " TRAINPKG_DATA_DIR=" + Quote(HPTUNE_DATA_DIR) + " ";
  const fs::path out = dir.path() / "out";
  const ShellResult run =
      RunShell(env + Quote(TRAINPKG_CLI) + " hptune --quiet --config " +
               Quote(dir.path() / "study.yaml") + " --base-output-dir " + Quote(out));
  ASSERT_EQ(run.code, 0) << run.out;
  EXPECT_THAT(run.out, HasSubstr("Best trial: "));
  std::cout << run.out.substr(run.out.find("TRIAL")) << std::flush;

  ASSERT_TRUE(fs::exists(out / "results.svg"));
  std::ifstream results_file(out / "results.json");
  const nlohmann::json results = nlohmann::json::parse(results_file);
  std::vector<double> objectives;
  for (const nlohmann::json& trial : results["trials"]) {
    ASSERT_TRUE(trial.contains("objective")) << trial.dump();
    objectives.push_back(trial["objective"].get<double>());
  }
  ASSERT_EQ(objectives.size(), 6u);
  std::sort(objectives.begin(), objectives.end());
  const double median = (objectives[2] + objectives[3]) / 2;
  EXPECT_GT(objectives.back(), median);
  EXPECT_EQ(results["trials"][0]["objective"].get<double>(), objectives.back());
  EXPECT_EQ(results["trials"][0]["id"], results["bestTrialId"]);

  const std::string name = results["tuningJob"]["name"].get<std::string>();
  const std::string id = name.substr(name.rfind('/') + 1);
  const ShellResult describe = RunShell(env + Quote(TRAINPKG_CLI) + " jobs describe " + id);
  ASSERT_EQ(describe.code, 0) << describe.out;
  EXPECT_THAT(describe.out, HasSubstr("Trials:"));
  EXPECT_THAT(describe.out, HasSubstr("learning_rate"));
  EXPECT_THAT(describe.out, HasSubstr("trial 6: CustomJob "));
  const ShellResult list = RunShell(env + Quote(TRAINPKG_CLI) + " jobs list");
  EXPECT_THAT(list.out, HasSubstr("Tuning jobs:"));
  EXPECT_THAT(list.out, HasSubstr("hptune-digits-trial-1"));
}

}  // namespace
