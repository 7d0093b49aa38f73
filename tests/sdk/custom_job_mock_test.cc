// How code that submits jobs is tested without running any: CustomJob over
// a gMock connection (sdk/mocks/mock_custom_job_connection.h), as
// google-cloud-cpp's clients are tested over mock Connections.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/custom_job.h"
#include "sdk/mocks/mock_custom_job_connection.h"

namespace trainpkg::sdk {
namespace {

using ::testing::Return;
using ::testing::ReturnRef;

// The code under test: a caller's "train, and say how it went".
std::string TrainAndReport(CustomJob job) {
  if (absl::Status status = job.Submit(); !status.ok()) {
    return "not submitted: " + std::string(status.message());
  }
  absl::StatusOr<jobspec::CustomJob> done = job.Wait();
  if (!done.ok()) return "lost: " + std::string(done.status().message());
  if (done->state != jobspec::JobState::kSucceeded) {
    job.Kill();
    return job.job_id() + " failed: " + (done->error ? done->error->message : "");
  }
  return job.job_id() + " succeeded";
}

TEST(CustomJobMockTest, ASucceededJobIsReportedByItsId) {
  auto mock = std::make_shared<mocks::MockCustomJobConnection>();
  const std::string id = "1234";
  jobspec::CustomJob succeeded;
  succeeded.state = jobspec::JobState::kSucceeded;
  EXPECT_CALL(*mock, Submit()).WillOnce(Return(absl::OkStatus()));
  EXPECT_CALL(*mock, Wait()).WillOnce(Return(succeeded));
  EXPECT_CALL(*mock, job_id()).WillOnce(ReturnRef(id));
  EXPECT_CALL(*mock, Kill()).Times(0);
  EXPECT_EQ(TrainAndReport(CustomJob(mock)), "1234 succeeded");
}

TEST(CustomJobMockTest, AFailedJobIsKilledAndItsErrorReported) {
  auto mock = std::make_shared<mocks::MockCustomJobConnection>();
  const std::string id = "1234";
  jobspec::CustomJob failed;
  failed.state = jobspec::JobState::kFailed;
  failed.error = jobspec::RpcStatus{.code = 3, .message = "workerpool1-0 exited with 3"};
  EXPECT_CALL(*mock, Submit()).WillOnce(Return(absl::OkStatus()));
  EXPECT_CALL(*mock, Wait()).WillOnce(Return(failed));
  EXPECT_CALL(*mock, Kill());
  EXPECT_CALL(*mock, job_id()).WillOnce(ReturnRef(id));
  EXPECT_EQ(TrainAndReport(CustomJob(mock)), "1234 failed: workerpool1-0 exited with 3");
}

TEST(CustomJobMockTest, ARefusedSubmitIsNeverWaitedFor) {
  auto mock = std::make_shared<mocks::MockCustomJobConnection>();
  EXPECT_CALL(*mock, Submit())
      .WillOnce(Return(absl::PermissionDeniedError("Vertex AI: HTTP 403")));
  EXPECT_CALL(*mock, Wait()).Times(0);
  EXPECT_EQ(TrainAndReport(CustomJob(mock)), "not submitted: Vertex AI: HTTP 403");
}

}  // namespace
}  // namespace trainpkg::sdk
