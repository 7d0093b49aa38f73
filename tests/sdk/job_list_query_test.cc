// `trainpkg jobs list --filter --sort-by --limit` and the job ids that
// describe, logs and cancel accept: a unique prefix or `latest` (issue 18
// item 7).
#include "sdk/cli/job_list_query.h"

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/cli/job_id_resolver.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

sdk::JobInfo Info(std::string id, std::string name, jobspec::JobState state, int64_t created,
                  std::string team = "ml") {
  sdk::JobInfo info;
  info.id = std::move(id);
  info.job.display_name = std::move(name);
  info.job.state = state;
  info.job.create_time = absl::FromUnixSeconds(created);
  info.job.labels["team"] = std::move(team);
  return info;
}

// Newest first, as JobClient::ListJobs gives them.
std::vector<sdk::JobInfo> Jobs() {
  return {Info("4", "train-b", jobspec::JobState::kRunning, 400),
          Info("3", "eval", jobspec::JobState::kSucceeded, 300, "infra"),
          Info("2", "train-a", jobspec::JobState::kRunning, 200),
          Info("1", "train-c", jobspec::JobState::kFailed, 100)};
}

std::vector<std::string> Ids(const JobListQuery& query) {
  absl::StatusOr<std::vector<sdk::JobInfo>> jobs = SelectJobs(Jobs(), query);
  EXPECT_THAT(jobs, IsOk());
  std::vector<std::string> ids;
  if (jobs.ok()) {
    for (const sdk::JobInfo& info : *jobs) ids.push_back(info.id);
  }
  return ids;
}

TEST(JobListQueryTest, FilterTermsJoinedByAnd) {
  EXPECT_THAT(Ids({.filter = "state=JOB_STATE_RUNNING"}), ElementsAre("4", "2"));
  EXPECT_THAT(Ids({.filter = "displayName:train"}), ElementsAre("4", "2", "1"));
  EXPECT_THAT(Ids({.filter = "labels.team=infra"}), ElementsAre("3"));
  EXPECT_THAT(Ids({.filter = "displayName:train AND state=JOB_STATE_RUNNING AND labels.team=ml"}),
              ElementsAre("4", "2"));
  EXPECT_THAT(Ids({}), ElementsAre("4", "3", "2", "1"));
}

TEST(JobListQueryTest, SortByAFieldAscendingOrWithTildeDescending) {
  EXPECT_THAT(Ids({.sort_by = "displayName"}), ElementsAre("3", "2", "4", "1"));
  EXPECT_THAT(Ids({.sort_by = "~displayName"}), ElementsAre("1", "4", "2", "3"));
  EXPECT_THAT(Ids({.sort_by = "createTime"}), ElementsAre("1", "2", "3", "4"));
  EXPECT_THAT(Ids({.sort_by = "~createTime"}), ElementsAre("4", "3", "2", "1"));
  // RUNNING (3) < SUCCEEDED (4) < FAILED (5); equal states keep their order.
  EXPECT_THAT(Ids({.sort_by = "state"}), ElementsAre("4", "2", "3", "1"));
}

TEST(JobListQueryTest, LimitCutsAfterFilterAndSort) {
  EXPECT_THAT(Ids({.limit = 2}), ElementsAre("4", "3"));
  EXPECT_THAT(Ids({.filter = "state=RUNNING", .sort_by = "createTime", .limit = 1}),
              ElementsAre("2"));
  EXPECT_THAT(Ids({.limit = 10}), ElementsAre("4", "3", "2", "1"));
}

TEST(JobListQueryTest, ErrorsNameTheFlag) {
  EXPECT_THAT(SelectJobs(Jobs(), {.filter = "stat=RUNNING"}).status().message(),
              HasSubstr("--filter: at 1: unknown field \"stat\""));
  EXPECT_THAT(SelectJobs(Jobs(), {.sort_by = "~createdTime"}).status().message(),
              HasSubstr("--sort-by: unknown field \"createdTime\"; did you mean 'createTime'?"));
  EXPECT_THAT(SelectJobs(Jobs(), {.limit = -1}).status().message(),
              HasSubstr("--limit: -1 is negative"));
}

class JobIdResolverTest : public ::testing::Test {
 protected:
  void AddJob(const std::string& id, int64_t created) {
    ASSERT_THAT(store_.CreateJobDir(id), IsOk());
    jobspec::CustomJob job;
    job.display_name = "j";
    job.create_time = absl::FromUnixSeconds(created);
    ASSERT_THAT(store_.WriteJob(id, job), IsOk());
  }
  void AddTuningJob(const std::string& id, int64_t created) {
    ASSERT_THAT(tuning_.CreateJobDir(id), IsOk());
    jobspec::HyperparameterTuningJob job;
    job.display_name = "t";
    job.create_time = absl::FromUnixSeconds(created);
    ASSERT_THAT(tuning_.WriteJob(id, job), IsOk());
  }
  absl::StatusOr<std::string> Resolve(std::string_view text) {
    return ResolveJobId(store_, tuning_, text);
  }

  testing::TempDir dir_;
  sdk::JobStore store_{dir_.path()};
  sdk::hptune::TuningJobStore tuning_{dir_.path()};
};

TEST_F(JobIdResolverTest, UniquePrefixExactIdAndLatest) {
  AddJob("1234567890123456", 100);
  AddJob("1299999999999999", 300);
  AddTuningJob("5550000000000000", 200);
  EXPECT_EQ(*Resolve("1234"), "1234567890123456");
  EXPECT_EQ(*Resolve("1299999999999999"), "1299999999999999");
  EXPECT_EQ(*Resolve("555"), "5550000000000000");
  EXPECT_EQ(*Resolve("latest"), "1299999999999999");
  AddTuningJob("7770000000000000", 400);
  EXPECT_EQ(*Resolve("latest"), "7770000000000000");
}

TEST_F(JobIdResolverTest, AmbiguousPrefixListsTheCandidates) {
  AddJob("1234567890123456", 100);
  AddJob("1299999999999999", 300);
  absl::Status status = Resolve("12").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr("job id prefix \"12\" is ambiguous: 1234567890123456, 1299999999999999; "
                        "give more digits"));
  for (int i = 0; i < 12; ++i) AddJob(absl::StrCat("88", 10 + i, "000000000000"), i);
  EXPECT_THAT(Resolve("88").status().message(), HasSubstr(" and 2 more; give more digits"));
}

TEST_F(JobIdResolverTest, NoMatchIsNotFound) {
  EXPECT_EQ(Resolve("latest").status().code(), absl::StatusCode::kNotFound);
  AddJob("1234567890123456", 100);
  absl::Status status = Resolve("99").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("no job has an id starting with \"99\""));
  EXPECT_EQ(Resolve("").status().code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainpkg::cli
