// samples/ps_digits/job.yaml run as users run it, through `trainpkg run
// --config` on the local backend: 1 chief, 2 workers, 2 ps, 1 evaluator.
#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/test_util/shell.h"

namespace {

namespace fs = std::filesystem;

constexpr char kImage[] = "local:build/samples/ps_digits/ps_digits";

using trainpkg::testing::ShellResult;

ShellResult RunShell(const std::string& command) { return trainpkg::testing::Sh(command); }

std::string Quote(const fs::path& path) { return trainpkg::testing::ShellQuote(path.string()); }

TEST(PsDigitsSampleTest, ConvergesAndTheEvaluatorWritesOneLinePerCheckpoint) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/ps_digits_sample.XXXXXX";
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  const fs::path dir = pattern;

  // The job file with its image pointing at the built sample.
  std::ifstream in(fs::path(PS_DIGITS_SOURCE_DIR) / "job.yaml");
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string image = std::string("local:") + PS_DIGITS;
  int replaced = 0;
  for (size_t at = yaml.find(kImage); at != std::string::npos; at = yaml.find(kImage, at)) {
    yaml.replace(at, std::string_view(kImage).size(), image);
    at += image.size();
    ++replaced;
  }
  ASSERT_EQ(replaced, 4);
  std::ofstream(dir / "job.yaml") << yaml;

  const ShellResult run = RunShell(
      "env -u TF_CONFIG -u CLUSTER_SPEC -u RANK -u SLURM_PROCID -u AIP_MODEL_DIR "
      "-u AIP_CHECKPOINT_DIR -u AIP_TENSORBOARD_LOG_DIR TRAINPKG_DATA_DIR=" +
      Quote(DIGITS_DATA_DIR) + " TRAINPKG_HOME=" + Quote(dir / "home") + " " + TRAINPKG_CLI +
      " run --config " + Quote(dir / "job.yaml") + " --base-output-dir " + Quote(dir / "out"));
  ASSERT_EQ(run.code, 0) << run.out;

  const size_t at = run.out.rfind("test_accuracy=");
  ASSERT_NE(at, std::string::npos) << run.out;
  const double accuracy = std::atof(run.out.c_str() + at + 14);
  std::cout << "ps_digits held-out accuracy: " << accuracy << "\n";
  EXPECT_GE(accuracy, 0.95);

  // Checkpoints every 90 of 540 steps: 6, each evaluated exactly once, in order.
  const fs::path ckpt = dir / "out" / "checkpoints" / "ps_digits";
  std::vector<int64_t> checkpoints;
  for (const auto& e : fs::directory_iterator(ckpt)) {
    const std::string name = e.path().filename().string();
    if (name.starts_with("ckpt-")) checkpoints.push_back(std::atoll(name.c_str() + 5));
  }
  std::sort(checkpoints.begin(), checkpoints.end());
  EXPECT_THAT(checkpoints, ::testing::ElementsAre(90, 180, 270, 360, 450, 540));
  std::ifstream metrics(ckpt / "eval_metrics.jsonl");
  std::vector<int64_t> evaluated;
  double last_accuracy = 0;
  for (std::string line; std::getline(metrics, line);) {
    nlohmann::json j = nlohmann::json::parse(line);
    evaluated.push_back(j["step"].get<int64_t>());
    last_accuracy = j["accuracy"].get<double>();
  }
  EXPECT_EQ(evaluated, checkpoints);
  EXPECT_GE(last_accuracy, 0.95);
  // The evaluator's TensorBoard scalars.
  bool events = false;
  for (const auto& e : fs::directory_iterator(dir / "out" / "logs" / "eval")) {
    events = events || e.path().filename().string().starts_with("events.out.tfevents.");
  }
  EXPECT_TRUE(events);
  fs::remove_all(dir);
}

}  // namespace
