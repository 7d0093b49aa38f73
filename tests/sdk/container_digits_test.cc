// The digits sample (1 chief + 2 workers) from an image made by the
// native-closure bundler (packager/bundle), run under runc to SUCCEEDED:
// the product path of issue 6 without a registry.
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/builder/image_store.h"
#include "packager/bundle/bundle_image.h"
#include "tests/sdk/container_test_util.h"

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ContainerDigitsTest : public testing::ContainerTestBase {};

TEST_F(ContainerDigitsTest, BundledDigitsSampleSucceedsUnderRunc) {
  ASSERT_TRUE(fs::exists(DIGITS_DATA)) << DIGITS_DATA << " is missing: scripts/fetch-digits.sh";
  absl::StatusOr<packager::builder::ImageStore> store =
      packager::builder::ImageStore::Open(home() / "images");
  ASSERT_TRUE(store.ok()) << store.status();
  packager::bundle::BundleRequest request;
  request.binary = DIGITS_SAMPLE;
  absl::StatusOr<packager::builder::BuiltImage> image =
      packager::bundle::BuildBundle(request, store->layout());
  ASSERT_TRUE(image.ok()) << image.status();
  ASSERT_TRUE(store->Tag(image->manifest_descriptor, "digits:test").ok());

  // The data goes in through the mounted base output directory.
  fs::create_directories(output_dir());
  fs::copy_file(DIGITS_DATA, output_dir() / "digits.csv.gz");
  jobspec::CustomJob spec =
      MakeContainerJob("digits:test", {1, 2},
                       {"--epochs=3", "--global_batch_size=64", "--learning_rate=0.001",
                        "--data=" + (output_dir() / "digits.csv.gz").string()});
  for (int pool : {0, 1}) {
    spec.job_spec.worker_pool_specs[pool].container_spec->env = {{"OPENBLAS_NUM_THREADS", "1"}};
  }
  absl::StatusOr<jobspec::CustomJob> done = RunJob(spec);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  EXPECT_TRUE(fs::exists(output_dir() / "model")) << log_.str();
  ExpectNothingLeft();
}

}  // namespace
}  // namespace trainpkg::sdk
