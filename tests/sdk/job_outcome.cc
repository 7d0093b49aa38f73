#include "tests/sdk/job_outcome.h"

#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk::testing {

absl::StatusOr<jobspec::CustomJob> CreateAndRun(const jobspec::CustomJob& spec,
                                                const CustomJobOptions& options) {
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, options);
  if (!job.ok()) return job.status();
  return job->Run();
}

void ExpectJobFailed(const absl::StatusOr<jobspec::CustomJob>& done, int code,
                     const ::testing::Matcher<const std::string&>& message) {
  ASSERT_THAT(done, ::trainpkg::testing::IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_EQ(done->error->code, code);
  EXPECT_THAT(done->error->message, message);
}

}  // namespace trainpkg::sdk::testing
