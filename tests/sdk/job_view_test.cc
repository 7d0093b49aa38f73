#include "sdk/cli/job_view.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::cli {
namespace {

using ::testing::HasSubstr;

TEST(FormatElapsedTest, PicksAReadableUnit) {
  EXPECT_EQ(FormatElapsed(absl::Milliseconds(850)), "850ms");
  EXPECT_EQ(FormatElapsed(absl::Milliseconds(12345)), "12.3s");
  EXPECT_EQ(FormatElapsed(absl::Seconds(245)), "4m05s");
  EXPECT_EQ(FormatElapsed(absl::Minutes(123)), "2h03m");
}

TEST(FormatJobTableTest, AlignsColumns) {
  sdk::JobInfo info;
  info.id = "1763777624123457";
  info.job.display_name = "hello";
  info.job.state = jobspec::JobState::kRunning;
  absl::Time now = absl::Now();
  info.job.create_time = now - absl::Seconds(10);
  info.job.start_time = now - absl::Seconds(5);
  std::string table = FormatJobTable({info}, now);
  EXPECT_THAT(table, HasSubstr("ID                DISPLAY NAME  STATE              CREATED"));
  EXPECT_THAT(table, HasSubstr("1763777624123457  hello         JOB_STATE_RUNNING  "));
  EXPECT_THAT(table, HasSubstr("5.0s      local\n"));

  // A Vertex job is marked in the BACKEND column.
  sdk::JobInfo remote = info;
  remote.id = "42";
  remote.backend = "vertex";
  table = FormatJobTable({info, remote}, now);
  EXPECT_THAT(table, HasSubstr("DURATION  BACKEND\n"));
  EXPECT_THAT(table, HasSubstr("42                hello         JOB_STATE_RUNNING  "));
  EXPECT_THAT(table, HasSubstr("5.0s      vertex\n"));
}

}  // namespace
}  // namespace trainpkg::cli
