// acceleratorCount -> CUDA_VISIBLE_DEVICES slices, end to end in process
// mode, with the host's GPUs given through the CUDA_VISIBLE_DEVICES seam
// (this machine has none).
#include <filesystem>
#include <sstream>

#include "base/environment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/custom_job.h"
#include "tests/sdk/container_test_util.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;

class ContainerGpuTest : public ::testing::Test {
 protected:
  absl::StatusOr<jobspec::CustomJob> Run(int chief_gpus, int worker_gpus) {
    jobspec::CustomJob spec =
        testing::MakeJob("/bin/sh", {{1, {"-c", "echo \"gpus=$CUDA_VISIBLE_DEVICES\""}},
                                     {2, {"-c", "echo \"gpus=$CUDA_VISIBLE_DEVICES\""}}});
    for (auto [pool, count] : {std::pair{0, chief_gpus}, std::pair{1, worker_gpus}}) {
      jobspec::MachineSpec& machine = *spec.job_spec.worker_pool_specs[pool].machine_spec;
      machine.accelerator_type = "NVIDIA_TESLA_T4";
      machine.accelerator_count = count;
    }
    CustomJobOptions options;
    options.home = dir_.path() / "home";
    options.log_stream = &log_;
    options.environment = base::SnapshotProcessEnvironment();
    (*options.environment)["CUDA_VISIBLE_DEVICES"] = "4,5,6,7";
    absl::StatusOr<CustomJob> job = CustomJob::Create(spec, options);
    if (!job.ok()) return job.status();
    job_dir_ = job->job_dir();
    return job->Run();
  }
  std::string Log(const std::string& replica) {
    return testing::Slurp(job_dir_ / "logs" / (replica + ".log"));
  }

  testing::TempDir dir_;
  std::ostringstream log_;
  std::filesystem::path job_dir_;
};

TEST_F(ContainerGpuTest, ReplicasGetDisjointSlices) {
  absl::StatusOr<jobspec::CustomJob> done = Run(2, 1);
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  EXPECT_EQ(Log("workerpool0-0"), "gpus=4,5\n");
  EXPECT_EQ(Log("workerpool1-0"), "gpus=6\n");
  EXPECT_EQ(Log("workerpool1-1"), "gpus=7\n");
}

TEST_F(ContainerGpuTest, AskingForMoreThanExistFailsClearly) {
  absl::StatusOr<jobspec::CustomJob> done = Run(2, 2);
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message,
              HasSubstr("replica workerpool1-1 asks for 2 GPU(s) but only 0 of the job's 6 fit; "
                        "this machine has 4 GPU(s) (4,5,6,7)"));
}

}  // namespace
}  // namespace trainpkg::sdk
