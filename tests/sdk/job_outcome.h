// How the sdk tests run a job to its end and check that it failed: the
// create-run-inspect steps that every backend's tests repeat.
#ifndef TRAINPKG_TESTS_SDK_JOB_OUTCOME_H_
#define TRAINPKG_TESTS_SDK_JOB_OUTCOME_H_

#include <string>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "jobspec/custom_job.h"
#include "sdk/custom_job.h"

namespace trainpkg::sdk::testing {

// Creates the job `spec` describes with `options` and runs it to its end:
// the job as it ended, or why it could not be created or run.
absl::StatusOr<jobspec::CustomJob> CreateAndRun(const jobspec::CustomJob& spec,
                                                const CustomJobOptions& options);

// Checks that `done` is a job that ended JOB_STATE_FAILED with an error of
// `code` (a google.rpc.Code number) whose message `message` matches. A
// fatal failure when there is no job or no error to look at, so callers
// that go on to read `done` wrap it in ASSERT_NO_FATAL_FAILURE.
void ExpectJobFailed(const absl::StatusOr<jobspec::CustomJob>& done, int code,
                     const ::testing::Matcher<const std::string&>& message);

}  // namespace trainpkg::sdk::testing

#endif  // TRAINPKG_TESTS_SDK_JOB_OUTCOME_H_
