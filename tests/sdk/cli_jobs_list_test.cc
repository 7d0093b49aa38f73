// `trainpkg jobs list --filter --sort-by --limit -q`, job id prefixes and
// `latest` in describe/logs/cancel, and the Slurm job id in describe, through
// the binary (issue 18 item 7).
#include <filesystem>
#include <string>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/job_store.h"
#include "tests/test_util/file.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using trainpkg::testing::ShellQuote;
using trainpkg::testing::ShellResult;

class CliJobsListTest : public ::testing::Test {
 protected:
  void SetUp() override {
    AddJob("1111000000000001", "train-a", jobspec::JobState::kRunning, 100, "ml");
    AddJob("1111000000000002", "eval", jobspec::JobState::kSucceeded, 200, "infra");
    AddJob("2222000000000003", "train-b", jobspec::JobState::kRunning, 300, "ml");
  }
  void AddJob(const std::string& id, const std::string& name, jobspec::JobState state,
              int64_t created, const std::string& team) {
    ASSERT_THAT(store_.CreateJobDir(id), IsOk());
    jobspec::CustomJob job;
    job.display_name = name;
    job.state = state;
    job.create_time = absl::FromUnixSeconds(created);
    job.labels["team"] = team;
    ASSERT_THAT(store_.WriteJob(id, job), IsOk());
  }
  ShellResult Trainpkg(const std::string& args) {
    return trainpkg::testing::Sh("TRAINPKG_HOME=" + ShellQuote(dir_.path().string()) + " " +
                                 TRAINPKG_PATH + " " + args + " </dev/null");
  }

  trainpkg::testing::TempDir dir_;
  JobStore store_{dir_.path()};
};

TEST_F(CliJobsListTest, FilterLimitSortAndQuiet) {
  ShellResult running = Trainpkg("jobs list -q --filter state=JOB_STATE_RUNNING");
  EXPECT_EQ(running.code, 0) << running.out;
  EXPECT_EQ(running.out, "2222000000000003\n1111000000000001\n");

  ShellResult named = Trainpkg(
      "jobs list -q --filter 'displayName:train AND labels.team=ml' "
      "--sort-by displayName");
  EXPECT_EQ(named.out, "1111000000000001\n2222000000000003\n");

  ShellResult limited = Trainpkg("jobs list -q --sort-by ~createTime --limit 2");
  EXPECT_EQ(limited.out, "2222000000000003\n1111000000000002\n");

  ShellResult table = Trainpkg("jobs list --filter labels.team=infra");
  EXPECT_EQ(table.code, 0) << table.out;
  EXPECT_THAT(table.out, HasSubstr("1111000000000002"));
  EXPECT_THAT(table.out, Not(HasSubstr("train-a")));

  ShellResult bad = Trainpkg("jobs list --filter stat=RUNNING");
  EXPECT_EQ(bad.code, 2) << bad.out;
  EXPECT_THAT(bad.out, HasSubstr("--filter: at 1: unknown field \"stat\""));
  ShellResult bad_sort = Trainpkg("jobs list --sort-by nmae");
  EXPECT_EQ(bad_sort.code, 2) << bad_sort.out;
  EXPECT_THAT(bad_sort.out, HasSubstr("--sort-by: unknown field \"nmae\""));
}

TEST_F(CliJobsListTest, DescribeTakesAPrefixOrLatest) {
  ShellResult prefix = Trainpkg("jobs describe 2222");
  EXPECT_EQ(prefix.code, 0) << prefix.out;
  EXPECT_THAT(prefix.out, HasSubstr("\"displayName\": \"train-b\""));

  ShellResult latest = Trainpkg("jobs describe latest");
  EXPECT_EQ(latest.code, 0) << latest.out;
  EXPECT_THAT(latest.out, HasSubstr("\"displayName\": \"train-b\""));

  ShellResult ambiguous = Trainpkg("jobs describe 1111");
  EXPECT_EQ(ambiguous.code, 2) << ambiguous.out;
  EXPECT_THAT(ambiguous.out, HasSubstr("job id prefix \"1111\" is ambiguous: 1111000000000001, "
                                       "1111000000000002; give more digits"));

  ShellResult none = Trainpkg("jobs logs 9");
  EXPECT_EQ(none.code, 1) << none.out;
  EXPECT_THAT(none.out, HasSubstr("no job has an id starting with \"9\""));
}

TEST_F(CliJobsListTest, DescribeShowsTheSlurmJobId) {
  ASSERT_TRUE(
      base::WriteFileAtomic(store_.JobDir("1111000000000002") / "slurm" / "job_id", "4242").ok());
  ShellResult describe = Trainpkg("jobs describe 1111000000000002");
  EXPECT_EQ(describe.code, 0) << describe.out;
  EXPECT_THAT(describe.out, HasSubstr("Slurm job: 4242"));
  ShellResult list = Trainpkg("jobs list");
  EXPECT_THAT(list.out, HasSubstr("slurm"));
}

}  // namespace
}  // namespace trainpkg::sdk
