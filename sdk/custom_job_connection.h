// What a CustomJob (sdk/custom_job.h) forwards to, in the manner of
// google-cloud-cpp's Connection classes: CustomJob::Create makes the one of
// options.backend's driver (sdk/backend_table.h); code that submits jobs can
// be tested without running any by building CustomJob over a mock instead
// (sdk/mocks/mock_custom_job_connection.h):
//
//   auto mock = std::make_shared<sdk::mocks::MockCustomJobConnection>();
//   EXPECT_CALL(*mock, Submit()).WillOnce(Return(absl::OkStatus()));
//   sdk::CustomJob job(mock);  // then pass `job` to the code under test
//
// Each method has the contract of the CustomJob method of the same name.
#ifndef TRAINPKG_SDK_CUSTOM_JOB_CONNECTION_H_
#define TRAINPKG_SDK_CUSTOM_JOB_CONNECTION_H_

#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::sdk {

class CustomJobConnection {
 public:
  virtual ~CustomJobConnection() = default;
  virtual absl::Status Submit() = 0;
  virtual absl::StatusOr<jobspec::CustomJob> Wait() = 0;
  virtual void Cancel() = 0;
  virtual void Kill() = 0;
  virtual jobspec::CustomJob job() const = 0;
  virtual const std::string& job_id() const = 0;
  virtual const std::string& resource_name() const = 0;
  virtual const std::filesystem::path& job_dir() const = 0;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_CUSTOM_JOB_CONNECTION_H_
