// cloudml-hypertune's metric file and TensorBoard event files, checked
// against bytes produced independently (Python's json.dumps; a bitwise
// CRC-32C in Python), and read back record by record.
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "absl/strings/str_split.h"
#include "base/crc32c.h"
#include "base/environment.h"
#include "base/file_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/train/event_file_writer.h"
#include "trainer_runtime/train/hypertune_reporter.h"
#include "trainer_runtime/train/internal/python_format.h"
#include "trainer_runtime/train/internal/tfrecord.h"
#include "trainer_runtime/train/proto/event.pb.h"
#include "trainer_runtime/train/tensorboard_logger.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::train {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path TestDir(const std::string& name) {
  fs::path dir = fs::temp_directory_path() / fmt::format("trainpkg-report-{}-{}", getpid(), name);
  fs::remove_all(dir);
  return dir;
}

TEST(PythonFormatTest, FloatReprMatchesPython) {
  using internal::PythonFloatRepr;
  // Each right-hand side printed by python3 -c 'print(repr(x))'.
  EXPECT_EQ(PythonFloatRepr(0.987), "0.987");
  EXPECT_EQ(PythonFloatRepr(1.0), "1.0");
  EXPECT_EQ(PythonFloatRepr(1e-05), "1e-05");
  EXPECT_EQ(PythonFloatRepr(0.0001), "0.0001");
  EXPECT_EQ(PythonFloatRepr(1e16), "1e+16");
  EXPECT_EQ(PythonFloatRepr(1e15), "1000000000000000.0");
  EXPECT_EQ(PythonFloatRepr(123456789012345680.0), "1.2345678901234568e+17");
  EXPECT_EQ(PythonFloatRepr(-2.5e-7), "-2.5e-07");
  EXPECT_EQ(PythonFloatRepr(0.1 + 0.2), "0.30000000000000004");
  EXPECT_EQ(PythonFloatRepr(5e-324), "5e-324");
  EXPECT_EQ(PythonFloatRepr(1.7976931348623157e308), "1.7976931348623157e+308");
  EXPECT_EQ(PythonFloatRepr(0.0), "0.0");
  EXPECT_EQ(PythonFloatRepr(-0.0), "-0.0");
}

TEST(PythonFormatTest, JsonStringEscapesLikeEnsureAscii) {
  using internal::PythonJsonString;
  EXPECT_EQ(PythonJsonString("a\"b\\c\n\t\x01\x7f"), R"("a\"b\\c\n\t\u0001\u007f")");
  EXPECT_EQ(PythonJsonString("m\xc3\xa9tre \xf0\x9f\x98\x80"), R"("m\u00e9tre \ud83d\ude00")");
}

TEST(HypertuneReporterTest, FileIsByteForByteWhatCloudmlHypertuneWrites) {
  const fs::path dir = TestDir("hypertune");
  base::MapEnvironment env({{"CLOUD_ML_HP_METRIC_FILE", (dir / "sub" / "out.metrics").string()},
                            {"CLOUD_ML_TRIAL_ID", "7"}});
  trainpkg::testing::FakeClock clock(absl::FromUnixMicros(1525851440123456));
  HypertuneReporter reporter = HypertuneReporter::FromEnvironment(env, clock);
  ASSERT_THAT(reporter.Report("accuracy", 0.987, 1000), IsOk());
  clock.Advance(absl::FromUnixMicros(1525851441500000) - clock.Now());
  ASSERT_THAT(reporter.Report("val/loss", 1e-05, 0, "gs://b/ckpt"), IsOk());
  clock.Advance(absl::FromUnixMicros(1525851442000000) - clock.Now());
  ASSERT_THAT(reporter.Report("", 3.0, 7), IsOk());
  clock.Advance(absl::FromUnixMicros(1525851443250000) - clock.Now());
  ASSERT_THAT(reporter.Report("m\xc3\xa9trique \"x\"", 1e16, 1), IsOk());
  // Printed by Python 3.11: for each report,
  //   print(json.dumps({'timestamp': ts, 'trial': str('7'), tag: str(float(v)),
  //                     'global_step': str(int(step) if step else 0),
  //                     'checkpoint_path': cp}, sort_keys=True))
  const std::string golden =
      R"({"accuracy": "0.987", "checkpoint_path": "", "global_step": "1000", "timestamp": 1525851440.123456, "trial": "7"})"
      "\n"
      R"({"checkpoint_path": "gs://b/ckpt", "global_step": "0", "timestamp": 1525851441.5, "trial": "7", "val/loss": "1e-05"})"
      "\n"
      R"({"checkpoint_path": "", "global_step": "7", "timestamp": 1525851442.0, "training/hptuning/metric": "3.0", "trial": "7"})"
      "\n"
      R"({"checkpoint_path": "", "global_step": "1", "m\u00e9trique \"x\"": "1e+16", "timestamp": 1525851443.25, "trial": "7"})"
      "\n";
  auto contents = base::ReadFile(dir / "sub" / "out.metrics");
  ASSERT_THAT(contents, IsOk());
  EXPECT_EQ(*contents, golden);
  fs::remove_all(dir);
}

TEST(HypertuneReporterTest, DefaultsAndKeepsTheLastHundred) {
  const HypertuneReporter defaults = HypertuneReporter::FromEnvironment(base::MapEnvironment());
  EXPECT_EQ(defaults.metric_file(), "/tmp/hypertune/output.metrics");
  EXPECT_EQ(defaults.trial_id(), "0");

  const fs::path dir = TestDir("hundred");
  trainpkg::testing::FakeClock clock(absl::FromUnixSeconds(1700000000));
  HypertuneReporter reporter(dir / "out.metrics", "0", clock);
  for (int i = 1; i <= 101; ++i) ASSERT_THAT(reporter.Report("m", i, i), IsOk());
  auto contents = base::ReadFile(dir / "out.metrics");
  ASSERT_THAT(contents, IsOk());
  std::vector<std::string> lines = absl::StrSplit(*contents, '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), 100u);
  EXPECT_THAT(lines.front(), HasSubstr(R"("global_step": "2", "m": "2.0")"));
  EXPECT_THAT(lines.back(), HasSubstr(R"("global_step": "101", "m": "101.0")"));
  fs::remove_all(dir);
}

// One record: checks both CRCs and returns the payload; advances `at`.
std::string ReadRecord(const std::string& file, size_t& at) {
  EXPECT_GE(file.size(), at + 12);
  uint64_t length = 0;
  std::memcpy(&length, file.data() + at, 8);
  uint32_t length_crc = 0, data_crc = 0;
  std::memcpy(&length_crc, file.data() + at + 8, 4);
  EXPECT_EQ(length_crc, base::MaskedCrc32c(std::string_view(file.data() + at, 8)));
  EXPECT_GE(file.size(), at + 16 + length);
  const std::string payload = file.substr(at + 12, length);
  std::memcpy(&data_crc, file.data() + at + 12 + length, 4);
  EXPECT_EQ(data_crc, base::MaskedCrc32c(payload));
  at += 16 + length;
  return payload;
}

TEST(TensorBoardTest, OneRecordIsByteForByteGolden) {
  // Event{wall_time: 1.5, step: 3, summary {value {tag: "loss" simple_value: 0.25}}},
  // encoded and framed by hand in Python (struct + a bitwise CRC-32C).
  const std::string golden(
      "\x1a\x00\x00\x00\x00\x00\x00\x00\x12\x9b\xd8\x2d\x09\x00\x00\x00\x00\x00\x00\xf8\x3f\x10"
      "\x03\x2a\x0d\x0a\x0b\x0a\x04\x6c\x6f\x73\x73\x15\x00\x00\x80\x3e\xd0\x54\xb2\x55",
      42);
  EXPECT_EQ(internal::FrameTfRecord(ScalarEvent(1.5, 3, {{"loss", 0.25f}})), golden);
}

TEST(TensorBoardTest, ChiefWritesAReadableEventFile) {
  const fs::path dir = TestDir("tb");
  trainpkg::testing::FakeClock clock(absl::FromUnixSeconds(1700000000) + absl::Milliseconds(250));
  auto logger = TensorBoardLogger::Create(dir.string(), {.hostname = "host1", .clock = &clock});
  ASSERT_THAT(logger, IsOk());
  OneDeviceStrategy strategy;
  nn::Sequential model;
  auto opt = nn::Adam::Create({});
  TrainContext context{strategy, model, **opt, 2};
  ASSERT_THAT((*logger)->OnTrainBegin(context), IsOk());
  EXPECT_EQ((*logger)->event_file(), dir / "events.out.tfevents.1700000000.host1");
  for (int epoch = 0; epoch < 2; ++epoch) {
    EpochLogs logs;
    logs.epoch = epoch;
    logs.loss = 0.5 / (epoch + 1);
    logs.accuracy = 0.75;
    logs.learning_rate = 1e-3;
    logs.step_seconds = 0.002;
    logs.val_loss = 0.6;
    logs.val_accuracy = 0.7;
    ASSERT_THAT((*logger)->OnEpochEnd(context, logs), IsOk());
  }
  auto file = base::ReadFile((*logger)->event_file());
  ASSERT_THAT(file, IsOk());
  size_t at = 0;
  tensorboard::Event version;
  ASSERT_TRUE(version.ParseFromString(ReadRecord(*file, at)));
  EXPECT_EQ(version.file_version(), "brain.Event:2");
  EXPECT_DOUBLE_EQ(version.wall_time(), 1700000000.25);
  for (int epoch = 0; epoch < 2; ++epoch) {
    tensorboard::Event event;
    ASSERT_TRUE(event.ParseFromString(ReadRecord(*file, at)));
    EXPECT_EQ(event.step(), epoch);
    ASSERT_EQ(event.summary().value_size(), 6);
    EXPECT_EQ(event.summary().value(0).tag(), "loss");
    EXPECT_FLOAT_EQ(event.summary().value(0).simple_value(), 0.5f / (epoch + 1));
    EXPECT_EQ(event.summary().value(2).tag(), "learning_rate");
    EXPECT_EQ(event.summary().value(3).tag(), "step_time");
    EXPECT_EQ(event.summary().value(5).tag(), "val_accuracy");
  }
  EXPECT_EQ(at, file->size());
  fs::remove_all(dir);
}

TEST(TensorBoardTest, WorkersWriteNothing) {
  const fs::path dir = TestDir("tbworker");
  trainpkg::testing::FakeClock clock;
  auto logger = TensorBoardLogger::Create(dir.string(), {.hostname = "h", .clock = &clock});
  ASSERT_THAT(logger, IsOk());
  struct NotChief final : Strategy {
    int rank() const override { return 1; }
    int num_replicas() const override { return 2; }
    absl::Status BroadcastParameters(std::span<nn::Parameter* const>) override {
      return absl::OkStatus();
    }
    absl::StatusOr<std::unique_ptr<BucketedGradientReducer>> MakeGradientReducer(
        std::span<nn::Parameter* const>) override {
      return nullptr;
    }
    absl::StatusOr<std::vector<double>> GatherFromReplicas(std::span<const double>) override {
      return std::vector<double>();
    }
    absl::Status Shutdown() override { return absl::OkStatus(); }
  } strategy;
  nn::Sequential model;
  auto opt = nn::Adam::Create({});
  TrainContext context{strategy, model, **opt, 1};
  ASSERT_THAT((*logger)->OnTrainBegin(context), IsOk());
  ASSERT_THAT((*logger)->OnEpochEnd(context, EpochLogs{}), IsOk());
  EXPECT_FALSE(fs::exists(dir));
}

}  // namespace
}  // namespace trainpkg::train
