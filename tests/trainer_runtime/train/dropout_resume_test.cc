// BackupAndRestore carries Dropout's generator through a checkpoint: a run
// resumed after a crash draws the masks the uninterrupted run draws.
#include <unistd.h>

#include <filesystem>
#include <memory>
#include <vector>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/train/backup_run.h"
#include "tests/trainer_runtime/train/test_job.h"
#include "trainer_runtime/nn/dropout.h"
#include "trainer_runtime/train/backup_and_restore.h"
#include "trainer_runtime/train/tensor_bundle.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::train {
namespace {

namespace fs = std::filesystem;
using testing::FitWithBackup;
using ::testing::HasSubstr;
using testing::TrainRun;
using ::trainpkg::testing::TempDir;

nn::Sequential MakeDropoutMlp() {
  nn::Sequential model;
  EXPECT_THAT(model.Add(nn::Dense::Create(6, 32)), IsOk());
  EXPECT_THAT(model.Add(std::make_unique<nn::ReLU>()), IsOk());
  EXPECT_THAT(model.Add(nn::Dropout::Create(0.5f, {.name = "", .seed = 77})), IsOk());
  EXPECT_THAT(model.Add(nn::Dense::Create(32, 3)), IsOk());
  model.InitializeParameters(5);
  return model;
}

// `reseed_before_fit` restarts the dropout generator from another seed first,
// as a fresh process whose model was built differently would have it.
TrainRun TrainWithBackup(const fs::path& backup_dir, int crash_after,
                         BackupOptions backup_options = {}, uint64_t reseed_before_fit = 0) {
  nn::Sequential model = MakeDropoutMlp();
  if (reseed_before_fit != 0) {
    static_cast<nn::Dropout&>(model.layer(2)).Reseed(reseed_before_fit);
  }
  return FitWithBackup(model, backup_dir, crash_after, backup_options);
}

TEST(DropoutResumeTest, ResumedRunDrawsTheUninterruptedRunsMasks) {
  TempDir dir;
  const TrainRun uninterrupted = TrainWithBackup(dir.path() / "a", /*crash_after=*/-1);
  ASSERT_THAT(uninterrupted.history, IsOk());

  const TrainRun crashed = TrainWithBackup(dir.path() / "b", /*crash_after=*/2);
  EXPECT_EQ(crashed.history.status().code(), absl::StatusCode::kAborted);
  // The restarted process would begin from the seed: here it even begins
  // from another one, so only the restored state can give the same masks.
  const TrainRun resumed =
      TrainWithBackup(dir.path() / "b", /*crash_after=*/-1, {}, /*reseed_before_fit=*/1234);
  ASSERT_THAT(resumed.history, IsOk());
  EXPECT_EQ(resumed.history->initial_epoch, 3);
  EXPECT_EQ(resumed.weights, uninterrupted.weights);
  ASSERT_EQ(resumed.history->epochs.size(), 2u);
  EXPECT_EQ(resumed.history->epochs[1].loss, uninterrupted.history->epochs[4].loss);
}

TEST(DropoutResumeTest, CheckpointHoldsTheGeneratorState) {
  TempDir dir;
  const TrainRun crashed = TrainWithBackup(dir.path(), /*crash_after=*/0);
  ASSERT_EQ(crashed.history.status().code(), absl::StatusCode::kAborted);
  auto bundle = ReadTensorBundle(dir.path() / "chief" / "checkpoint.tpckpt");
  ASSERT_THAT(bundle, IsOk());
  ASSERT_TRUE(bundle->counters.contains("rng/dropout/size"));
  const int64_t size = bundle->counters.at("rng/dropout/size");
  EXPECT_EQ(size, static_cast<int64_t>(nn::Rng(1).State().size()));
  EXPECT_TRUE(bundle->counters.contains(fmt::format("rng/dropout/{}", size - 1)));
  EXPECT_FALSE(bundle->counters.contains("rng/dense/size"));
}

TEST(DropoutResumeTest, StateOfTheWrongSizeIsRefused) {
  TempDir dir;
  (void)TrainWithBackup(dir.path(), /*crash_after=*/0);
  const fs::path file = dir.path() / "chief" / "checkpoint.tpckpt";
  auto bundle = ReadTensorBundle(file);
  ASSERT_THAT(bundle, IsOk());
  bundle->counters["rng/dropout/size"] = 3;
  ASSERT_THAT(WriteTensorBundle(file, *bundle), IsOk());
  const TrainRun run = TrainWithBackup(dir.path(), -1);
  EXPECT_EQ(run.history.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(run.history.status().message(),
              HasSubstr("layer dropout has a generator state of 3 numbers"));
}

}  // namespace
}  // namespace trainpkg::train
