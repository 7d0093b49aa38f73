// A gMock CustomJobConnection (sdk/custom_job_connection.h), in the manner of
// google-cloud-cpp's mocks/ folders: build a CustomJob over it to test code
// that submits jobs without running any. Header-only; include it from tests
// that link GoogleTest/gMock.
#ifndef TRAINPKG_SDK_MOCKS_MOCK_CUSTOM_JOB_CONNECTION_H_
#define TRAINPKG_SDK_MOCKS_MOCK_CUSTOM_JOB_CONNECTION_H_

#include <filesystem>
#include <string>

#include "gmock/gmock.h"
#include "sdk/custom_job_connection.h"

namespace trainpkg::sdk::mocks {

class MockCustomJobConnection : public CustomJobConnection {
 public:
  MOCK_METHOD(absl::Status, Submit, (), (override));
  MOCK_METHOD(absl::StatusOr<jobspec::CustomJob>, Wait, (), (override));
  MOCK_METHOD(void, Cancel, (), (override));
  MOCK_METHOD(void, Kill, (), (override));
  MOCK_METHOD(jobspec::CustomJob, job, (), (const, override));
  MOCK_METHOD(const std::string&, job_id, (), (const, override));
  MOCK_METHOD(const std::string&, resource_name, (), (const, override));
  MOCK_METHOD(const std::filesystem::path&, job_dir, (), (const, override));
};

}  // namespace trainpkg::sdk::mocks

#endif  // TRAINPKG_SDK_MOCKS_MOCK_CUSTOM_JOB_CONNECTION_H_
