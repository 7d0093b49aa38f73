#include "trainer_runtime/ps/evaluator.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/ps/checkpoint_dir.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::ps {
namespace {

namespace fs = std::filesystem;

class EvaluatorTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/ps_evaluator.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  static train::TensorBundle Checkpoint(int64_t step) {
    train::TensorBundle b;
    b.kind = "checkpoint";
    b.tensors.push_back({"w", {1}, {static_cast<float>(step)}});
    b.counters["step"] = step;
    return b;
  }

  EvaluatorOptions Options() {
    EvaluatorOptions o;
    o.checkpoint_dir = dir_ / "ckpt";
    o.metrics_file = dir_ / "metrics.jsonl";
    o.tensorboard_dir = dir_ / "tb";
    return o;
  }

  // The metrics file's steps.
  std::vector<int64_t> Lines() {
    std::vector<int64_t> steps;
    auto text = base::ReadFile(dir_ / "metrics.jsonl");
    if (!text.ok()) return steps;
    std::istringstream in(*text);
    for (std::string line; std::getline(in, line);) {
      steps.push_back(nlohmann::json::parse(line)["step"].get<int64_t>());
    }
    return steps;
  }

  fs::path dir_;
};

// Each "sleep" of the evaluator lets the fake chief write its next
// checkpoint; after the third it marks training done.
TEST_F(EvaluatorTest, EvaluatesEveryCheckpointOnceAndStopsWhenTrainingIsDone) {
  CheckpointDir chief(dir_ / "ckpt");
  ASSERT_THAT(chief.Write(10, Checkpoint(10)), IsOk());
  int polls = 0;
  EvaluatorOptions options = Options();
  trainpkg::testing::FakeClock clock;
  options.clock = &clock;
  clock.OnSleep([&](absl::Duration) {
    ++polls;
    if (polls == 1) {
      ASSERT_THAT(chief.Write(20, Checkpoint(20)), IsOk());
    }
    if (polls == 2) {
      ASSERT_THAT(chief.Write(30, Checkpoint(30)), IsOk());
      ASSERT_THAT(chief.MarkDone(30), IsOk());
    }
  });
  std::vector<float> seen;
  auto evaluated = RunEvaluator(options, [&](const train::TensorBundle& b) {
    seen.push_back(b.tensors[0].values[0]);
    return absl::StatusOr<EvalMetrics>(EvalMetrics{0.5, 0.9, 10});
  });
  ASSERT_THAT(evaluated, IsOk());
  EXPECT_EQ(*evaluated, 3);
  EXPECT_THAT(seen, ::testing::ElementsAre(10.0f, 20.0f, 30.0f));
  EXPECT_THAT(Lines(), ::testing::ElementsAre(10, 20, 30));
  // One TensorBoard event file.
  int files = 0;
  for (const auto& e : fs::directory_iterator(dir_ / "tb")) {
    files += e.path().filename().string().starts_with("events.out.tfevents.") ? 1 : 0;
  }
  EXPECT_EQ(files, 1);

  // A rerun finds nothing new and returns at once.
  auto again = RunEvaluator(Options(), [&](const train::TensorBundle&) {
    return absl::StatusOr<EvalMetrics>(EvalMetrics{});
  });
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(*again, 0);
  EXPECT_THAT(Lines(), ::testing::ElementsAre(10, 20, 30));
}

TEST_F(EvaluatorTest, GivesUpAfterTheIdleTimeout) {
  EvaluatorOptions options = Options();
  trainpkg::testing::FakeClock clock(absl::UnixEpoch());
  options.clock = &clock;
  options.idle_timeout = absl::Seconds(2);
  auto evaluated = RunEvaluator(options, [](const train::TensorBundle&) {
    return absl::StatusOr<EvalMetrics>(EvalMetrics{});
  });
  EXPECT_EQ(evaluated.status().code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(std::string(evaluated.status().message()), ::testing::HasSubstr("not marked done"));
}

TEST_F(EvaluatorTest, ACorruptMetricsFileIsDataLossNamingTheLine) {
  ASSERT_THAT(base::WriteFileAtomic(dir_ / "metrics.jsonl", "{\"step\":1}\nnot json\n"), IsOk());
  auto evaluated = RunEvaluator(Options(), [](const train::TensorBundle&) {
    return absl::StatusOr<EvalMetrics>(EvalMetrics{});
  });
  EXPECT_EQ(evaluated.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(evaluated.status().message()), ::testing::HasSubstr("metrics.jsonl:2"));
}

TEST(CheckpointDirTest, ListsStepsInOrderAndPrunesBeyondMaxToKeep) {
  const char* tmp = std::getenv("TEST_TMPDIR");
  std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/ps_ckpt.XXXXXX";
  ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
  CheckpointDir dir(pattern, 2);
  train::TensorBundle b;
  b.kind = "checkpoint";
  for (int64_t step : {5, 100, 20}) ASSERT_THAT(dir.Write(step, b), IsOk());
  auto steps = dir.Steps();
  ASSERT_THAT(steps, IsOk());
  EXPECT_THAT(*steps, ::testing::ElementsAre(20, 100));
  EXPECT_EQ(**dir.LatestStep(), 100);
  EXPECT_FALSE(dir.IsDone());
  ASSERT_THAT(dir.MarkDone(100), IsOk());
  EXPECT_TRUE(dir.IsDone());
  ASSERT_THAT(dir.ClearDone(), IsOk());
  EXPECT_FALSE(dir.IsDone());
  fs::remove_all(pattern);
}

}  // namespace
}  // namespace trainpkg::ps
