// The collectives' correctness sweep (collectives_test_rank ... sweep: sizes
// from 1 float to 64 MiB + 3, means, NaN and infinities, a prepared
// allreduce run 1000 times, broadcast, allgather) in container mode: 2, 3
// and 4 replicas of one job under runc, forced onto shared memory
// (TRAINPKG_COLLECTIVES=shm fails the job where the containers could not
// share it), then nothing left behind.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/container_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

class ContainerCollectivesTest : public testing::ContainerTestBase,
                                 public ::testing::WithParamInterface<int> {};

TEST_P(ContainerCollectivesTest, SweepPassesOnSharedMemoryInContainers) {
  const int ranks = GetParam();
  const std::string image = BundleImage("collectives:test", COLLECTIVES_TEST_RANK);
  jobspec::CustomJob spec = MakeContainerJob(image, {1, ranks - 1}, {"1", "0", "sweep"});
  for (jobspec::WorkerPoolSpec& pool : spec.job_spec.worker_pool_specs) {
    if (pool.container_spec.has_value()) {
      pool.container_spec->env = {{"TRAINPKG_COLLECTIVES", "shm"}};
    }
  }
  absl::StatusOr<jobspec::CustomJob> done = RunJob(spec);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  for (int rank = 0; rank < ranks; ++rank) {
    EXPECT_THAT(log_.str(),
                ::testing::HasSubstr("rank " + std::to_string(rank) + " running on shm"));
    EXPECT_THAT(log_.str(), ::testing::HasSubstr("rank " + std::to_string(rank) + " sweep passed"));
  }
  ExpectNothingLeft();
}

INSTANTIATE_TEST_SUITE_P(Ranks, ContainerCollectivesTest, ::testing::Values(2, 3, 4),
                         [](const auto& param_info) {
                           return std::to_string(param_info.param) + "Ranks";
                         });

}  // namespace
}  // namespace trainpkg::sdk
