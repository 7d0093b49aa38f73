// The digits sample (1 chief + 2 workers) from an image made by the
// native-closure bundler (packager/bundle), run under runc to SUCCEEDED:
// the product path of issue 6 without a registry, its collectives through
// the job's shared /dev/shm.
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/container_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;

class ContainerDigitsTest : public testing::ContainerTestBase {};

TEST_F(ContainerDigitsTest, BundledDigitsSampleSucceedsUnderRunc) {
  const std::string image = BundleImage("digits:test", DIGITS_SAMPLE);
  absl::StatusOr<jobspec::CustomJob> done = RunJob(MakeDigitsJob(image, 2, 3));
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  // The three containers share the job's /dev/shm, so their collectives do.
  EXPECT_THAT(log_.str(), ::testing::HasSubstr("collectives: shm (3 ranks)"));
  EXPECT_TRUE(fs::exists(output_dir() / "model")) << log_.str();
  ExpectNothingLeft();
}

}  // namespace
}  // namespace trainpkg::sdk
