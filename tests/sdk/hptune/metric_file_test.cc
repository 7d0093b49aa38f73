#include "sdk/hptune/metric_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <string>
#include <utility>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::hptune {
namespace {

using ::testing::HasSubstr;

// Lines exactly as cloudml-hypertune (and HypertuneReporter) write them.
constexpr char kFile[] =
    R"({"checkpoint_path": "", "global_step": "1", "accuracy": "0.5", "timestamp": 1700000010.5, "trial": "3"})"
    "\n"
    R"({"checkpoint_path": "", "global_step": "2", "loss": "0.9", "timestamp": 1700000011.0, "trial": "3"})"
    "\n"
    R"({"checkpoint_path": "", "global_step": "3", "accuracy": "0.75", "timestamp": 1700000012.5, "trial": "3"})"
    "\n";

TEST(MetricFileTest, ParsesIntermediateMeasurementsOfTheMetric) {
  absl::StatusOr<std::vector<jobspec::Measurement>> measurements =
      ParseHypertuneMetrics(kFile, "accuracy", absl::FromUnixSeconds(1700000010));
  ASSERT_THAT(measurements, IsOk());
  ASSERT_EQ(measurements->size(), 2u);
  EXPECT_EQ((*measurements)[0].step_count, 1);
  EXPECT_EQ(jobspec::MetricValue((*measurements)[0], "accuracy"), 0.5);
  EXPECT_EQ((*measurements)[0].elapsed_duration, absl::Milliseconds(500));
  EXPECT_EQ((*measurements)[1].step_count, 3);
  EXPECT_EQ(jobspec::MetricValue((*measurements)[1], "accuracy"), 0.75);
  EXPECT_EQ((*measurements)[1].elapsed_duration, absl::Milliseconds(2500));
}

TEST(MetricFileTest, DefaultTagCountsAsTheMetric) {
  absl::StatusOr<std::vector<jobspec::Measurement>> measurements = ParseHypertuneMetrics(
      R"({"global_step": "0", "training/hptuning/metric": "1.5", "timestamp": 1.0, "trial": "0"})",
      "loss");
  ASSERT_THAT(measurements, IsOk());
  ASSERT_EQ(measurements->size(), 1u);
  EXPECT_EQ(jobspec::MetricValue((*measurements)[0], "loss"), 1.5);
  EXPECT_FALSE((*measurements)[0].elapsed_duration.has_value());
}

TEST(MetricFileTest, BadLinesNameTheLine) {
  absl::StatusOr<std::vector<jobspec::Measurement>> bad =
      ParseHypertuneMetrics(std::string(kFile) + "not json\n", "accuracy");
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad.status().message(), HasSubstr("line 4"));
  bad = ParseHypertuneMetrics(R"({"accuracy": "high"})", "accuracy");
  EXPECT_THAT(bad.status().message(), HasSubstr("line 1: the value of \"accuracy\""));
}

TEST(MetricFileTest, AbsentFileIsNoMeasurementsAndErrorsNameTheFile) {
  sdk::testing::TempDir dir;
  absl::StatusOr<std::vector<jobspec::Measurement>> none =
      ReadHypertuneMetrics(dir.path() / "absent", "accuracy");
  ASSERT_THAT(none, IsOk());
  EXPECT_TRUE(none->empty());
  std::ofstream(dir.path() / "bad") << "[1]\n";
  absl::StatusOr<std::vector<jobspec::Measurement>> bad =
      ReadHypertuneMetrics(dir.path() / "bad", "accuracy");
  EXPECT_THAT(bad.status().message(), HasSubstr((dir.path() / "bad").string() + ": line 1"));
}

TEST(MetricFileTest, SelectsLastOrBestByGoal) {
  std::vector<jobspec::Measurement> measurements =
      *ParseHypertuneMetrics(R"({"global_step": "1", "m": "0.2"})"
                             "\n"
                             R"({"global_step": "2", "m": "0.9"})"
                             "\n"
                             R"({"global_step": "3", "m": "0.5"})",
                             "m");
  using jobspec::GoalType;
  using jobspec::MeasurementSelection;
  EXPECT_EQ(SelectFinalMeasurement(measurements, "m", MeasurementSelection::kUnspecified,
                                   GoalType::kMaximize)
                ->step_count,
            3);
  EXPECT_EQ(
      SelectFinalMeasurement(measurements, "m", MeasurementSelection::kBest, GoalType::kMaximize)
          ->step_count,
      2);
  EXPECT_EQ(
      SelectFinalMeasurement(measurements, "m", MeasurementSelection::kBest, GoalType::kMinimize)
          ->step_count,
      1);
  EXPECT_FALSE(SelectFinalMeasurement(measurements, "other", MeasurementSelection::kLast,
                                      GoalType::kMaximize)
                   .has_value());
}

// A trial (maybe a hostile container) controls its metric file: a link to
// /dev/zero or another file, a FIFO, or a huge file is refused with a clear
// error instead of read without end; a huge global_step is an error, not
// undefined behaviour.
TEST(MetricFileTest, LinksSpecialAndHugeFilesAreRefused) {
  sdk::testing::TempDir dir;
  std::filesystem::create_symlink("/dev/zero", dir.path() / "zero");
  ASSERT_EQ(::mkfifo((dir.path() / "fifo").c_str(), 0600), 0);
  // Each read runs in a child with bounded address space and time: a reader
  // that follows the link reads /dev/zero without end, one that opens the
  // FIFO waits for a writer forever.
  const auto refused = [&](const char* name, const char* why) {
    return ::trainpkg::testing::RunInChildMeasured(
        [&] {
          ::alarm(20);
          absl::StatusOr<std::vector<jobspec::Measurement>> read =
              ReadHypertuneMetrics(dir.path() / name, "accuracy");
          std::fprintf(stderr, "%s: %s\n", name, read.status().ToString().c_str());
          return absl::IsInvalidArgument(read.status()) &&
                         std::string(read.status().message()).find(why) != std::string::npos
                     ? 0
                     : 1;
        },
        int64_t{1} << 30);
  };
  for (const auto& [name, why] : {std::pair{"zero", "a symbolic link"},
                                  std::pair{"fifo", "not a regular file"}}) {
    const ::trainpkg::testing::ChildRun run = refused(name, why);
    EXPECT_EQ(run.exit_code, 0) << name << ": signal " << run.signal;
    EXPECT_LE(run.peak_rss_kib, 256 << 10) << name;
  }
  {
    std::ofstream big(dir.path() / "big");
    const std::string line = R"({"accuracy": "0.5", "global_step": "1"})"
                             "\n";
    for (size_t written = 0; written <= (size_t{1} << 20); written += line.size()) big << line;
  }
  absl::StatusOr<std::vector<jobspec::Measurement>> big =
      ReadHypertuneMetrics(dir.path() / "big", "accuracy");
  EXPECT_THAT(big.status().message(), HasSubstr("larger than 1048576 bytes"));
  EXPECT_FALSE(
      ParseHypertuneMetrics(R"({"accuracy": "0.5", "global_step": "1e300"})", "accuracy").ok());
}

}  // namespace
}  // namespace trainpkg::sdk::hptune
