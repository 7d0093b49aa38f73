// Model files, checkpoints (BackupAndRestore) and the output-directory rule.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "base/environment.h"
#include "base/file_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/train/backup_run.h"
#include "tests/trainer_runtime/train/test_job.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/train/backup_and_restore.h"
#include "trainer_runtime/train/fit.h"
#include "trainer_runtime/train/model_file.h"
#include "trainer_runtime/train/multi_worker_mirrored_strategy.h"
#include "trainer_runtime/train/output_dirs.h"
#include "trainer_runtime/train/tensor_bundle.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::train {
namespace {

namespace fs = std::filesystem;
using testing::FitWithBackup;
using ::testing::HasSubstr;
using testing::MakeDataset;
using testing::MakeMlp;
using testing::OnEveryRank;
using testing::Replica;
using testing::ShardedSource;
using testing::TrainRun;
using testing::Weights;
using ::trainpkg::testing::TempDir;

TEST(ModelFileTest, SaveLoadRoundTripIsBitExact) {
  TempDir dir;
  nn::Sequential saved = MakeMlp(5, 7, 3, 1);
  saved.parameters()[0]->value.data()[0] = -0.0f;
  saved.parameters()[0]->value.data()[1] = 1e-42f;  // a denormal
  ASSERT_THAT(SaveModel(saved, dir.path() / "m.tpmodel"), IsOk());
  nn::Sequential loaded = MakeMlp(5, 7, 3, 2);
  ASSERT_NE(Weights(loaded), Weights(saved));
  ASSERT_THAT(LoadModel(dir.path() / "m.tpmodel", loaded), IsOk());
  const auto a = Weights(saved), b = Weights(loaded);
  ASSERT_EQ(a.size(), b.size());
  EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(float)), 0);
}

TEST(ModelFileTest, HeaderIsDocumentedLayout) {
  nn::Sequential model = MakeMlp(2, 3, 2, 1);
  const std::string bytes = EncodeTensorBundle(ModelBundle(model));
  EXPECT_EQ(bytes.substr(0, 8), "TPTENSOR");
  EXPECT_EQ(bytes[8], 1);  // version 1, little-endian
  const uint32_t h = static_cast<unsigned char>(bytes[12]) |
                     static_cast<uint32_t>(static_cast<unsigned char>(bytes[13])) << 8;
  const std::string header = bytes.substr(16, h);
  EXPECT_THAT(header, HasSubstr(R"("kind":"model")"));
  EXPECT_THAT(
      header,
      HasSubstr(R"({"name":"dense","kind":"dense","parameters":["dense/kernel","dense/bias"]})"));
  EXPECT_THAT(header, HasSubstr(R"({"name":"dense/kernel","shape":[2,3]})"));
  // data: (2*3 + 3 + 3*3 + 3 + 3*2 + 2) floats, then the CRC.
  EXPECT_EQ(bytes.size(), 16 + h + 4 * (6 + 3 + 9 + 3 + 6 + 2) + 4);
}

TEST(ModelFileTest, OtherVersionIsRefusedClearly) {
  nn::Sequential model = MakeMlp(2, 3, 2, 1);
  std::string bytes = EncodeTensorBundle(ModelBundle(model));
  bytes[8] = 2;
  auto decoded = DecodeTensorBundle(bytes, "x.tpmodel");
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(decoded.status().message(),
              HasSubstr("x.tpmodel: format version 2; this build reads version 1"));
}

TEST(ModelFileTest, CorruptedOrTruncatedFileFailsTheCrc) {
  nn::Sequential model = MakeMlp(2, 3, 2, 1);
  std::string bytes = EncodeTensorBundle(ModelBundle(model));
  std::string flipped = bytes;
  flipped[bytes.size() - 10] ^= 0x01;
  auto decoded = DecodeTensorBundle(flipped, "x.tpmodel");
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(decoded.status().message(), HasSubstr("x.tpmodel: CRC mismatch (stored 0x"));
  EXPECT_THAT(decoded.status().message(), HasSubstr("corrupted or truncated"));
  decoded = DecodeTensorBundle(bytes.substr(0, bytes.size() - 3), "x.tpmodel");
  EXPECT_EQ(decoded.status().code(), absl::StatusCode::kDataLoss);
  decoded = DecodeTensorBundle("GIF89a...", "x.tpmodel");
  EXPECT_THAT(decoded.status().message(), HasSubstr("not a trainpkg tensor file"));
}

TEST(ModelFileTest, DifferentArchitectureIsRefusedAndNothingChanges) {
  TempDir dir;
  nn::Sequential saved = MakeMlp(5, 7, 3, 1);
  ASSERT_THAT(SaveModel(saved, dir.path() / "m.tpmodel"), IsOk());
  nn::Sequential wider = MakeMlp(5, 8, 3, 2);
  const auto before = Weights(wider);
  absl::Status status = LoadModel(dir.path() / "m.tpmodel", wider);
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(status.message(), HasSubstr("dense/kernel has shape [5, 7] in the file but [5, 8]"));
  EXPECT_EQ(Weights(wider), before);
}

TrainRun TrainWithBackup(const fs::path& backup_dir, int crash_after) {
  nn::Sequential model = MakeMlp(6, 16, 3, 21);
  return FitWithBackup(model, backup_dir, crash_after);
}

TEST(BackupAndRestoreTest, ResumedRunEqualsUninterruptedRunAndBackupIsDeleted) {
  TempDir dir;
  const TrainRun uninterrupted = TrainWithBackup(dir.path() / "a", /*crash_after=*/-1);
  ASSERT_THAT(uninterrupted.history, IsOk());
  EXPECT_FALSE(fs::exists(dir.path() / "a"));  // deleted after the successful finish

  const TrainRun crashed = TrainWithBackup(dir.path() / "b", /*crash_after=*/2);
  EXPECT_EQ(crashed.history.status().code(), absl::StatusCode::kAborted);
  EXPECT_TRUE(fs::exists(dir.path() / "b" / "chief" / "checkpoint.tpckpt"));
  const TrainRun resumed = TrainWithBackup(dir.path() / "b", /*crash_after=*/-1);
  ASSERT_THAT(resumed.history, IsOk());
  EXPECT_EQ(resumed.history->initial_epoch, 3);
  ASSERT_EQ(resumed.history->epochs.size(), 2u);
  EXPECT_EQ(resumed.history->epochs[0].epoch, 3);
  // Bit-identical: same data order per epoch, same weights and Adam moments
  // and step count restored.
  EXPECT_EQ(resumed.weights, uninterrupted.weights);
  EXPECT_EQ(resumed.history->epochs[1].loss, uninterrupted.history->epochs[4].loss);
  EXPECT_FALSE(fs::exists(dir.path() / "b"));
}

TEST(BackupAndRestoreTest, CorruptedBackupIsAnErrorNotAFreshStart) {
  TempDir dir;
  (void)TrainWithBackup(dir.path(), /*crash_after=*/0);
  const fs::path file = dir.path() / "chief" / "checkpoint.tpckpt";
  auto bytes = base::ReadFile(file);
  ASSERT_THAT(bytes, IsOk());
  (*bytes)[bytes->size() / 2] ^= 0x40;
  ASSERT_THAT(base::WriteFileAtomic(file, *bytes), IsOk());
  const TrainRun run = TrainWithBackup(dir.path(), -1);
  EXPECT_EQ(run.history.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(run.history.status().message(), HasSubstr("checkpoint.tpckpt: CRC mismatch"));
}

TEST(BackupAndRestoreTest, WorkersWriteTempDirsAndRemoveThem) {
  TempDir dir;
  const auto data = MakeDataset(96, 4, 2, 1);
  for (bool keep : {false, true}) {
    const fs::path backup_dir = dir.path() / (keep ? "kept" : "removed");
    const fs::path model_dir = dir.path() / (keep ? "model_kept" : "model");
    testing::ThreadJob job(3);
    OnEveryRank(3, [&](int r) {
      MultiWorkerMirroredStrategy strategy(job.comm(r), {});
      nn::Sequential model = MakeMlp(4, 8, 2, 3);
      auto adam = nn::Adam::Create({});
      ShardedSource train(data, 24, r, 3, 1);
      BackupOptions options;
      options.delete_backup = false;
      options.write.keep_worker_temp = keep;
      auto backup = BackupAndRestore::Create(backup_dir.string(), Replica(r, 3), options);
      ASSERT_THAT(backup, IsOk());
      FitOptions fit;
      fit.epochs = 2;
      fit.callbacks = {backup->get()};
      ASSERT_THAT(Fit(strategy, model, **adam, train, nullptr, fit), IsOk());
      ASSERT_THAT(SaveModelToDir(model, model_dir.string(), Replica(r, 3), options.write), IsOk());
    });
    EXPECT_TRUE(fs::exists(backup_dir / "chief" / "checkpoint.tpckpt"));
    EXPECT_TRUE(fs::exists(model_dir / "model.tpmodel"));
    for (int w = 0; w < 2; ++w) {
      const std::string temp = fmt::format("workertemp_{}", w);
      EXPECT_EQ(fs::exists(backup_dir / "chief" / temp / "checkpoint.tpckpt"), keep) << temp;
      EXPECT_EQ(fs::exists(model_dir / temp / "model.tpmodel"), keep) << temp;
    }
    if (!keep) {
      // Nothing but the chief's file: no temp dirs, no half-written files.
      EXPECT_EQ(std::distance(fs::directory_iterator(model_dir), fs::directory_iterator()), 1);
      EXPECT_EQ(
          std::distance(fs::directory_iterator(backup_dir / "chief"), fs::directory_iterator()), 1);
    }
  }
}

TEST(OutputDirsTest, FlagsThenVertexVariablesThenJobDir) {
  base::MapEnvironment env({{"AIP_MODEL_DIR", "gs://b/out/model/"},
                            {"AIP_CHECKPOINT_DIR", ""},
                            {"AIP_TENSORBOARD_LOG_DIR", "gs://b/out/logs/"}});
  OutputDirFlags flags;
  flags.job_dir = "gs://b/job/";
  OutputDirs dirs = ResolveOutputDirs(env, flags);
  EXPECT_EQ(dirs.model_dir, "gs://b/out/model/");
  EXPECT_EQ(dirs.checkpoint_dir, "gs://b/job/checkpoints");  // "" counts as unset
  EXPECT_EQ(dirs.tensorboard_dir, "gs://b/out/logs/");
  flags.model_dir = "/tmp/m";
  EXPECT_EQ(ResolveOutputDirs(env, flags).model_dir, "/tmp/m");
  EXPECT_EQ(ResolveOutputDirs(base::MapEnvironment(), {}).model_dir, "");
}

}  // namespace
}  // namespace trainpkg::train
