// The digits sample end to end: the reference configuration (global batch
// 64) on one replica (job_1worker.yaml) and on a chief + 2 workers job
// (job.yaml, slices 22/21/21) through `trainpkg run`, then accuracy,
// data-parallel equivalence of the final weights, and the outputs of each
// replica.
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/train/model_file.h"
#include "trainer_runtime/train/tensor_bundle.h"

using ::trainpkg::testing::IsOk;

namespace {

namespace fs = std::filesystem;

constexpr char kImage[] = "local:build/samples/digits_multiworker/digits_multiworker";
// The acceptance bar of issue 5 on the held-out 20%.
constexpr double kMinAccuracy = 0.98;
// Largest difference allowed between the 1-replica and the 3-replica
// weights after 30 epochs: float rounding of the allreduce (the sum of three
// weighted partial gradients vs one GEMM over the whole batch), carried
// through 660 Adam steps.
constexpr float kWeightTolerance = 1e-4f;

using trainpkg::testing::ShellResult;

ShellResult RunShell(const std::string& command) { return trainpkg::testing::Sh(command); }

std::string Quote(const fs::path& path) { return trainpkg::testing::ShellQuote(path.string()); }

// The last test_accuracy=<x> of the output, or -1.
double TestAccuracy(const std::string& output) {
  const size_t at = output.rfind("test_accuracy=");
  if (at == std::string::npos) return -1;
  return std::atof(output.c_str() + at + std::string_view("test_accuracy=").size());
}

// The run's summary lines (mean_epoch_seconds=..., test_accuracy=...), for
// the test log.
void PrintSummary(const std::string& name, const std::string& output) {
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find("mean_epoch_seconds=") != std::string::npos ||
        line.find("test_accuracy=") != std::string::npos) {
      std::cout << name << ": " << line << "\n";
    }
  }
}

// The sample's job file with its image pointing at the built sample.
fs::path JobFileFor(const std::string& name, const fs::path& dir) {
  std::ifstream in(fs::path(DIGITS_SAMPLE_SOURCE_DIR) / name);
  std::stringstream text;
  text << in.rdbuf();
  std::string yaml = text.str();
  const std::string image = std::string("local:") + DIGITS_SAMPLE;
  for (size_t at = yaml.find(kImage); at != std::string::npos; at = yaml.find(kImage, at)) {
    yaml.replace(at, std::string_view(kImage).size(), image);
    at += image.size();
  }
  fs::path file = dir / name;
  std::ofstream(file) << yaml;
  return file;
}

class DigitsMultiworkerTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/digits_sample.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = new fs::path(pattern);
    // Variables a launcher above this test may have set are not the job's.
    const std::string clean =
        "env -u TF_CONFIG -u CLUSTER_SPEC -u RANK -u SLURM_PROCID -u AIP_MODEL_DIR "
        "-u AIP_CHECKPOINT_DIR -u AIP_TENSORBOARD_LOG_DIR -u CLOUD_ML_HP_METRIC_TAG "
        "TRAINPKG_DATA_DIR=" +
        Quote(DIGITS_DATA_DIR) + " TRAINPKG_HOME=" + Quote(*dir_ / "home") + " ";
    auto job = [&](const std::string& name, const std::string& file) {
      return RunShell(clean + "CLOUD_ML_HP_METRIC_FILE=" +
                      Quote(*dir_ / name / "hypertune" / "output.metrics") + " " + TRAINPKG_CLI +
                      " run --config " + Quote(JobFileFor(file, *dir_)) + " --base-output-dir " +
                      Quote(*dir_ / name));
    };
    reference_ = new ShellResult(job("reference", "job_1worker.yaml"));
    three_workers_ = new ShellResult(job("three", "job.yaml"));
    PrintSummary("job_1worker.yaml (global batch 64)", reference_->out);
    PrintSummary("job.yaml, chief + 2 workers (global batch 64)", three_workers_->out);
  }

  static void TearDownTestSuite() {
    std::error_code ec;
    if (dir_ != nullptr) fs::remove_all(*dir_, ec);
    delete dir_;
    delete reference_;
    delete three_workers_;
  }

  static fs::path* dir_;
  static ShellResult* reference_;      // job_1worker.yaml: global batch 64
  static ShellResult* three_workers_;  // job.yaml: chief + 2 workers, global batch 64 (22/21/21)
};

fs::path* DigitsMultiworkerTest::dir_ = nullptr;
ShellResult* DigitsMultiworkerTest::reference_ = nullptr;
ShellResult* DigitsMultiworkerTest::three_workers_ = nullptr;

TEST_F(DigitsMultiworkerTest, ReferenceConfigurationOnOneWorkerReachesAccuracy) {
  ASSERT_EQ(reference_->code, 0) << reference_->out;
  EXPECT_GE(TestAccuracy(reference_->out), kMinAccuracy) << reference_->out;
}

TEST_F(DigitsMultiworkerTest, ChiefAndTwoWorkersReachAccuracy) {
  ASSERT_EQ(three_workers_->code, 0) << three_workers_->out;
  EXPECT_THAT(three_workers_->out, ::testing::HasSubstr("rank=2 world_size=3"));
  EXPECT_GE(TestAccuracy(three_workers_->out), kMinAccuracy) << three_workers_->out;
}

TEST_F(DigitsMultiworkerTest, ThreeWorkerWeightsMatchOneWorkerOnTheSameGlobalBatches) {
  ASSERT_EQ(reference_->code, 0) << reference_->out;
  ASSERT_EQ(three_workers_->code, 0) << three_workers_->out;
  absl::StatusOr<trainpkg::train::TensorBundle> one = trainpkg::train::ReadTensorBundle(
      *dir_ / "reference" / "model" / trainpkg::train::kModelFileName);
  absl::StatusOr<trainpkg::train::TensorBundle> three = trainpkg::train::ReadTensorBundle(
      *dir_ / "three" / "model" / trainpkg::train::kModelFileName);
  ASSERT_THAT(one, IsOk());
  ASSERT_THAT(three, IsOk());
  ASSERT_EQ(one->tensors.size(), 6u);
  ASSERT_EQ(three->tensors.size(), one->tensors.size());
  float largest = 0;
  for (size_t t = 0; t < one->tensors.size(); ++t) {
    const trainpkg::train::NamedTensor& a = one->tensors[t];
    const trainpkg::train::NamedTensor& b = three->tensors[t];
    ASSERT_EQ(a.name, b.name);
    ASSERT_EQ(a.shape, b.shape) << a.name;
    for (size_t i = 0; i < a.values.size(); ++i) {
      largest = std::max(largest, std::abs(a.values[i] - b.values[i]));
    }
  }
  std::cout << fmt::format("largest weight difference, 3 replicas vs 1 replica: {:.3g}\n", largest);
  EXPECT_LE(largest, kWeightTolerance);
}

TEST_F(DigitsMultiworkerTest, OutputsFollowTheChiefAndWorkerRules) {
  ASSERT_EQ(three_workers_->code, 0) << three_workers_->out;
  const fs::path base = *dir_ / "three";
  EXPECT_TRUE(fs::is_regular_file(base / "model" / trainpkg::train::kModelFileName));
  std::vector<std::string> model_entries;
  for (const fs::directory_entry& e : fs::directory_iterator(base / "model")) {
    model_entries.push_back(e.path().filename().string());
  }
  EXPECT_THAT(model_entries, ::testing::ElementsAre(std::string(trainpkg::train::kModelFileName)));
  // The backup is deleted after a successful finish.
  EXPECT_FALSE(fs::exists(base / "checkpoints" / "chief"));

  std::ifstream metrics(base / "hypertune" / "output.metrics");
  std::stringstream lines;
  lines << metrics.rdbuf();
  EXPECT_THAT(lines.str(), ::testing::HasSubstr("\"accuracy\": \"0.9"));
  EXPECT_THAT(lines.str(), ::testing::HasSubstr("\"global_step\": \"30\""));

  int event_files = 0;
  if (fs::is_directory(base / "logs")) {
    for (const fs::directory_entry& e : fs::directory_iterator(base / "logs")) {
      if (e.path().filename().string().starts_with("events.out.tfevents.") &&
          fs::file_size(e.path()) > 0) {
        ++event_files;
      }
    }
  }
  EXPECT_EQ(event_files, 1) << "one event file, the chief's, in " << (base / "logs");
}

TEST_F(DigitsMultiworkerTest, GlobalBatchSmallerThanTheReplicasIsRefused) {
  ShellResult bad =
      RunShell(std::string("env -u TF_CONFIG -u CLUSTER_SPEC ") +
               "TF_CONFIG='{\"cluster\":{\"chief\":[\"127.0.0.1:1\"],\"worker\":[\"127.0.0.1:2\","
               "\"127.0.0.1:3\"]},\"task\":{\"type\":\"worker\",\"index\":1}}' " +
               DIGITS_SAMPLE + " --data=" + Quote(fs::path(DIGITS_DATA_DIR) / "digits.csv.gz") +
               " --global_batch_size=2");
  EXPECT_EQ(bad.code, 1) << bad.out;
  EXPECT_THAT(bad.out, ::testing::HasSubstr("smaller than the 3 replicas"));
}

}  // namespace
