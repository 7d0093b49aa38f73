// The list filter `trainpkg serve` evaluates.
#include "sdk/serve/list_filter.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::serve {
namespace {

using ::testing::HasSubstr;

jobspec::CustomJob Job(std::string name, jobspec::JobState state, int64_t created) {
  jobspec::CustomJob job;
  job.display_name = std::move(name);
  job.state = state;
  job.create_time = absl::FromUnixSeconds(created);
  job.labels["team"] = "ml";
  return job;
}

bool Matches(std::string_view filter, const jobspec::CustomJob& job) {
  absl::StatusOr<ListFilter> parsed = ListFilter::Parse(filter);
  EXPECT_THAT(parsed, IsOk());
  return parsed.ok() && parsed->Matches(job);
}

TEST(ListFilterTest, StateAndDisplayNameWithWildcards) {
  jobspec::CustomJob job = Job("my_job_7", jobspec::JobState::kSucceeded, 100);
  EXPECT_TRUE(Matches("", job));
  EXPECT_TRUE(Matches(R"(state="JOB_STATE_SUCCEEDED" AND display_name:"my_job_*")", job));
  EXPECT_TRUE(Matches("state=SUCCEEDED", job));
  EXPECT_TRUE(Matches("state=4", job));
  EXPECT_FALSE(Matches("state!=JOB_STATE_SUCCEEDED", job));
  EXPECT_FALSE(Matches(R"(display_name:"other*")", job));
  EXPECT_TRUE(Matches(R"(display_name:"job")", job));
  EXPECT_TRUE(Matches(R"(display_name="my_job_7")", job));
  EXPECT_TRUE(Matches(R"(NOT display_name="x")", job));
  EXPECT_TRUE(Matches(R"(displayName="my_job_7")", job));
}

TEST(ListFilterTest, LabelsAndTimes) {
  jobspec::CustomJob job = Job("a", jobspec::JobState::kRunning, 100);
  EXPECT_TRUE(Matches("labels.team=ml", job));
  EXPECT_TRUE(Matches("labels.team:*", job));
  EXPECT_FALSE(Matches("labels.owner:*", job));
  EXPECT_TRUE(Matches(R"(create_time>"1970-01-01T00:01:00Z")", job));
  EXPECT_FALSE(Matches(R"(create_time<"1970-01-01T00:01:00Z")", job));
}

TEST(ListFilterTest, ErrorsNameThePositionAndWhatIsValid) {
  EXPECT_THAT(ListFilter::Parse("stat=RUNNING").status().message(),
              HasSubstr("at 1: unknown field \"stat\"; valid: display_name, state"));
  EXPECT_THAT(ListFilter::Parse("state=RUNNING OR state=FAILED").status().message(),
              HasSubstr("expected AND between terms"));
  EXPECT_THAT(ListFilter::Parse("state>RUNNING").status().message(),
              HasSubstr("operator > does not apply to state"));
  EXPECT_EQ(ListFilter::Parse("state=BOGUS").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ListFilter::Parse(R"(display_name="open)").status().message(),
              HasSubstr("unterminated"));
}

}  // namespace
}  // namespace trainpkg::sdk::serve
