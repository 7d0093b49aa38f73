#include "sdk/internal/launch_plan.h"

#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "sdk/internal/replica_plan.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk::internal {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::trainpkg::testing::IsOk;

class LaunchPlanTest : public ::testing::Test {
 protected:
  // A chief and two workers, local executables.
  void SetUp() override {
    job_ = sdk::testing::MakeJob("/opt/train", {{1, {"--chief"}}, {2, {"--worker"}}});
    job_.job_spec.worker_pool_specs[1].container_spec->env = {{"WORLD", "w-$(HOME)"}};
    absl::StatusOr<std::vector<sdk::internal::ReplicaPlan>> plans =
        sdk::internal::PlanReplicas(job_.job_spec);
    ASSERT_THAT(plans, IsOk());
    plans_ = *std::move(plans);
  }

  LaunchPlanRequest Request() const {
    return LaunchPlanRequest{.spec = &job_.job_spec,
                             .plans = plans_,
                             .job_id = "123",
                             .project_id = "local",
                             .job_secret = "s3cret",
                             .environment = &environment_,
                             .ports = ports_,
                             .gpus = {},
                             .hosts = {},
                             .remote = false};
  }

  jobspec::CustomJob job_;
  std::vector<sdk::internal::ReplicaPlan> plans_;
  std::map<std::string, std::string> environment_ = {{"HOME", "/home/u"}, {"PATH", "/bin"}};
  std::vector<int> ports_ = {5001, 5002, 5003, 5999};
};

TEST_F(LaunchPlanTest, EveryReplicaSeesEveryAddressAndTheChiefsRendezvousPort) {
  absl::StatusOr<std::vector<ReplicaLaunch>> launches = MakeLaunchPlan(Request());
  ASSERT_THAT(launches, IsOk());
  ASSERT_EQ(launches->size(), 3u);
  for (size_t i = 0; i < 3; ++i) {
    const ReplicaLaunch& launch = (*launches)[i];
    EXPECT_EQ(launch.plan, &plans_[i]);
    EXPECT_EQ(launch.address, "127.0.0.1:" + std::to_string(ports_[i]));
    absl::StatusOr<jobspec::ClusterSpecEnv> spec =
        jobspec::ParseClusterSpec(launch.env.at("CLUSTER_SPEC"));
    ASSERT_THAT(spec, IsOk());
    EXPECT_THAT(spec->cluster.at("workerpool0"), ::testing::ElementsAre("127.0.0.1:5001"));
    EXPECT_THAT(spec->cluster.at("workerpool1"),
                ::testing::ElementsAre("127.0.0.1:5002", "127.0.0.1:5003"));
    EXPECT_EQ(launch.env.at("MASTER_PORT"), "5999");
    EXPECT_EQ(launch.env.at("TRAINPKG_JOB_SECRET"), "s3cret");
    EXPECT_EQ(launch.env.count("CUDA_VISIBLE_DEVICES"), 0u);
  }
  EXPECT_EQ((*launches)[2].env.at("RANK"), "2");
}

TEST_F(LaunchPlanTest, AHostProcessInheritsTheEnvironmentAndExpandsItsPoolsVariables) {
  absl::StatusOr<std::vector<ReplicaLaunch>> launches = MakeLaunchPlan(Request());
  ASSERT_THAT(launches, IsOk());
  EXPECT_EQ((*launches)[0].env.at("PATH"), "/bin");
  EXPECT_EQ((*launches)[0].env.count("WORLD"), 0u) << "pool 0 has no env entries";
  EXPECT_EQ((*launches)[1].env.at("WORLD"), "w-/home/u");
}

TEST_F(LaunchPlanTest, AContainerGetsTheClusterEnvOnly) {
  job_.job_spec.worker_pool_specs[1].container_spec->image_uri = "127.0.0.1:5000/trainer:1";
  absl::StatusOr<std::vector<sdk::internal::ReplicaPlan>> plans =
      sdk::internal::PlanReplicas(job_.job_spec);
  ASSERT_THAT(plans, IsOk());
  plans_ = *std::move(plans);
  absl::StatusOr<std::vector<ReplicaLaunch>> launches = MakeLaunchPlan(Request());
  ASSERT_THAT(launches, IsOk());
  const ReplicaLaunch& container = (*launches)[1];
  EXPECT_EQ(container.env.count("PATH"), 0u) << "the host's environment stays on the host";
  EXPECT_EQ(container.env.count("WORLD"), 0u) << "PrepareContainerReplica applies it";
  EXPECT_TRUE(container.env.contains("TF_CONFIG"));
}

// The SSH backend: each replica on its host's address; a remote process gets
// the cluster env and its pool's entries, not this machine's environment.
TEST_F(LaunchPlanTest, RemoteReplicasGetTheirHostsAddressesAndNoLocalEnvironment) {
  std::vector<std::string> hosts = {"10.9.0.2", "10.9.0.3", "10.9.0.3"};
  LaunchPlanRequest request = Request();
  request.hosts = hosts;
  request.remote = true;
  absl::StatusOr<std::vector<ReplicaLaunch>> launches = MakeLaunchPlan(request);
  ASSERT_THAT(launches, IsOk());
  EXPECT_EQ((*launches)[2].address, "10.9.0.3:5003");
  absl::StatusOr<jobspec::ClusterSpecEnv> spec =
      jobspec::ParseClusterSpec((*launches)[1].env.at("CLUSTER_SPEC"));
  ASSERT_THAT(spec, IsOk());
  EXPECT_THAT(spec->cluster.at("workerpool1"),
              ::testing::ElementsAre("10.9.0.3:5002", "10.9.0.3:5003"));
  EXPECT_EQ((*launches)[1].env.at("MASTER_ADDR"), "10.9.0.2");
  EXPECT_EQ((*launches)[1].env.count("PATH"), 0u) << "the remote login's PATH applies";
  EXPECT_EQ((*launches)[1].env.at("WORLD"), "w-$(HOME)") << "no local HOME to expand";

  hosts.pop_back();
  request.hosts = hosts;
  EXPECT_THAT(MakeLaunchPlan(request).status().message(), HasSubstr("hosts for 2 of 3 replicas"));
}

TEST_F(LaunchPlanTest, GpusBecomeCudaVisibleDevices) {
  std::vector<std::vector<std::string>> gpus = {{"0", "1"}, {}, {"2"}};
  LaunchPlanRequest request = Request();
  request.gpus = gpus;
  absl::StatusOr<std::vector<ReplicaLaunch>> launches = MakeLaunchPlan(request);
  ASSERT_THAT(launches, IsOk());
  EXPECT_EQ((*launches)[0].env.at("CUDA_VISIBLE_DEVICES"), "0,1");
  EXPECT_EQ((*launches)[1].env.count("CUDA_VISIBLE_DEVICES"), 0u);
  EXPECT_EQ((*launches)[2].env.at("CUDA_VISIBLE_DEVICES"), "2");
}

TEST_F(LaunchPlanTest, TooFewPortsOrGpuSlicesAreRefused) {
  ports_ = {5001, 5002, 5003};
  absl::Status status = MakeLaunchPlan(Request()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("3 ports for 3 replicas"));

  ports_ = {5001, 5002, 5003, 5999};
  std::vector<std::vector<std::string>> gpus = {{"0"}};
  LaunchPlanRequest request = Request();
  request.gpus = gpus;
  status = MakeLaunchPlan(request).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("GPU slices for 1 of 3 replicas"));
}

// The chief's rendezvous port must not be its cluster port: the cluster env
// refuses, and the plan names the replica.
TEST_F(LaunchPlanTest, AClusterEnvErrorNamesTheReplica) {
  ports_ = {5001, 5002, 5003, 5001};
  absl::Status status = MakeLaunchPlan(Request()).status();
  EXPECT_THAT(status, Not(IsOk()));
  EXPECT_THAT(status.message(), HasSubstr("Making the environment of replica workerpool0-0"));
}

}  // namespace
}  // namespace trainpkg::sdk::internal
