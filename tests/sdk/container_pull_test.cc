// Container mode pulls an image that is not in the local store from its
// registry (a real docker-registry on 127.0.0.1) into the store, then runs
// it under runc; CustomJobFromLocalBinary builds, pushes and runs.
#include <cstring>
#include <filesystem>
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/image_pusher.h"
#include "registry/oci/layout.h"
#include "registry/reference.h"
#include "registry/registry_client.h"
#include "sdk/custom_job.h"
#include "sdk/custom_job_from_local_binary.h"
#include "tests/registry/registry_server.h"
#include "tests/sdk/container_test_util.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ContainerPullTest : public testing::ContainerTestBase {};

TEST_F(ContainerPullTest, PullsAnAbsentImageIntoTheStoreAndRunsIt) {
  registry::testing::RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  // Built into the store, then pushed; the store is emptied before the job.
  BuildImage("pulled:1",
             "FROM scratch\n"
             "COPY bin/busybox /bin/busybox\n"
             "ENTRYPOINT [\"/bin/busybox\", \"echo\", \"pulled-and-ran\"]\n");
  const std::string remote = server.host() + "/sdk/pulled:1";
  {
    absl::StatusOr<oci::Layout> store = oci::Layout::Open(home() / "images");
    ASSERT_THAT(store, IsOk());
    registry::RegistryClient client{registry::RegistryClientOptions{}};
    absl::StatusOr<registry::Reference> target = registry::ParseReference(remote);
    ASSERT_THAT(target, IsOk());
    auto pushed = registry::PushImage(client, *store, "docker.io/library/pulled:1", *target,
                                      registry::PushOptions{});
    ASSERT_THAT(pushed, IsOk());
  }
  fs::remove_all(home() / "images");

  absl::StatusOr<jobspec::CustomJob> done = RunJob(MakeContainerJob(remote, {1}, {}));
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  EXPECT_EQ(testing::Slurp(job_dir_ / "logs/workerpool0-0.log"), "pulled-and-ran\n");
  absl::StatusOr<oci::Layout> store = oci::Layout::Open(home() / "images");
  ASSERT_THAT(store, IsOk());
  EXPECT_THAT(store->Resolve(remote), IsOk());
  ExpectNothingLeft();
}

// Issue 20's disk rule: two versions of a trainer on one large base, pulled
// and run on a machine that has neither, keep the base's bytes once in the
// rootfs cache (du counts a hardlinked file once).
TEST_F(ContainerPullTest, TwoTrainerVersionsOnOneBaseStoreTheBasesBytesOnce) {
  registry::testing::RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  constexpr size_t kBaseBytes = 24 << 20;  // a layer above RootfsCache::kBaseLayerBytes
  {
    std::string base(kBaseBytes, '\0');
    std::mt19937_64 random(20);
    for (size_t i = 0; i + 8 <= base.size(); i += 8) {
      const uint64_t word = random();
      std::memcpy(base.data() + i, &word, 8);
    }
    testing::WriteContextFile(context() / "base.bin", base);
  }
  registry::RegistryClient client{registry::RegistryClientOptions{}};
  absl::StatusOr<oci::Layout> store = oci::Layout::Open(home() / "images");
  for (int version : {1, 2}) {
    testing::WriteContextFile(context() / "version.txt", std::to_string(version) + "\n");
    BuildImage("trainer:" + std::to_string(version),
               "FROM scratch\n"
               "COPY bin/busybox /bin/busybox\n"
               "COPY base.bin /opt/base.bin\n"
               "COPY version.txt /app/version.txt\n"
               "ENTRYPOINT [\"/bin/busybox\", \"cat\", \"/app/version.txt\"]\n");
    store = oci::Layout::Open(home() / "images");
    ASSERT_THAT(store, IsOk());
    absl::StatusOr<registry::Reference> target =
        registry::ParseReference(server.host() + "/sdk/trainer:" + std::to_string(version));
    ASSERT_THAT(target, IsOk());
    ASSERT_THAT(
        registry::PushImage(client, *store, "docker.io/library/trainer:" + std::to_string(version),
                            *target, registry::PushOptions{}),
        IsOk());
  }
  fs::remove_all(home());  // the running machine has neither image

  for (int version : {1, 2}) {
    absl::StatusOr<jobspec::CustomJob> done = RunJob(
        MakeContainerJob(server.host() + "/sdk/trainer:" + std::to_string(version), {1}, {}));
    ASSERT_THAT(done, IsOk());
    EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
    EXPECT_EQ(testing::Slurp(job_dir_ / "logs/workerpool0-0.log"), std::to_string(version) + "\n");
  }
  trainpkg::testing::ShellResult du = trainpkg::testing::Sh(
      "du -sb " + trainpkg::testing::ShellQuote((home() / "rootfs").string()));
  ASSERT_EQ(du.code, 0) << du.out;
  const uint64_t bytes = std::stoull(du.out);
  EXPECT_GE(bytes, kBaseBytes);
  EXPECT_LT(bytes, kBaseBytes * 3 / 2) << "the base's bytes are in the cache once, not per version";
}

TEST_F(ContainerPullTest, FromLocalBinaryBuildsPushesAndRunsAChiefAndWorkers) {
  registry::testing::RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  LocalBinaryJobOptions request;
  request.display_name = "from-local-binary";
  request.bundle.binary = testing::ReplicaProbePath();
  request.image_uri = server.host() + "/sdk/probe:1";
  request.args = {"--print=ran-from-the-bundle"};
  request.replica_count = 3;
  request.base_output_dir = output_dir().string();
  absl::StatusOr<CustomJob> job = CustomJobFromLocalBinary(request, Options());
  ASSERT_THAT(job, IsOk());
  const jobspec::CustomJobSpec spec = job->job().job_spec;
  ASSERT_EQ(spec.worker_pool_specs.size(), 2u);
  EXPECT_EQ(spec.worker_pool_specs[0].replica_count, 1);
  EXPECT_EQ(spec.worker_pool_specs[1].replica_count, 2);
  EXPECT_EQ(spec.worker_pool_specs[1].container_spec->image_uri, request.image_uri);

  // Only the registry has the image now: the run pulls what was pushed.
  fs::remove_all(home() / "images");
  job_dir_ = job->job_dir();
  job_id_ = job->job_id();
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  for (const char* replica : {"workerpool0-0", "workerpool1-0", "workerpool1-1"}) {
    EXPECT_THAT(testing::Slurp(job_dir_ / "logs" / (std::string(replica) + ".log")),
                HasSubstr("ran-from-the-bundle"))
        << replica;
  }
  ExpectNothingLeft();
}

TEST_F(ContainerPullTest, FromLocalBinaryRefusesAMissingBinaryOrReplicaCount) {
  LocalBinaryJobOptions request;
  request.display_name = "bad";
  request.bundle.binary = dir_.path() / "no-such-binary";
  request.image_uri = "127.0.0.1:1/sdk/none:1";
  absl::StatusOr<CustomJob> job = CustomJobFromLocalBinary(request, Options());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kNotFound) << job.status();
  EXPECT_THAT(job.status().message(), HasSubstr("no-such-binary"));

  request.replica_count = 0;
  job = CustomJobFromLocalBinary(request, Options());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument) << job.status();
  EXPECT_THAT(job.status().message(), HasSubstr("replica_count"));

  request.replica_count = 1;
  request.image_uri = "Not A Reference";
  job = CustomJobFromLocalBinary(request, Options());
  EXPECT_EQ(job.status().code(), absl::StatusCode::kInvalidArgument) << job.status();
  EXPECT_THAT(job.status().message(), HasSubstr("image_uri \"Not A Reference\""));
}

}  // namespace
}  // namespace trainpkg::sdk
