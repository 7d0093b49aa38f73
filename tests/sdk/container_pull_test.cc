// Container mode pulls an image that is not in the local store from its
// registry (a real docker-registry on 127.0.0.1) into the store, then runs
// it under runc.
#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/image_pusher.h"
#include "registry/oci/layout.h"
#include "registry/reference.h"
#include "registry/registry_client.h"
#include "tests/registry/registry_server.h"
#include "tests/sdk/container_test_util.h"

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class ContainerPullTest : public testing::ContainerTestBase {};

TEST_F(ContainerPullTest, PullsAnAbsentImageIntoTheStoreAndRunsIt) {
  registry::testing::RegistryServer server;
  ASSERT_TRUE(server.Start({}).ok());
  // Built into the store, then pushed; the store is emptied before the job.
  BuildImage("pulled:1",
             "FROM scratch\n"
             "COPY bin/busybox /bin/busybox\n"
             "ENTRYPOINT [\"/bin/busybox\", \"echo\", \"pulled-and-ran\"]\n");
  const std::string remote = server.host() + "/sdk/pulled:1";
  {
    absl::StatusOr<oci::Layout> store = oci::Layout::Open(home() / "images");
    ASSERT_TRUE(store.ok());
    registry::RegistryClient client{registry::RegistryClientOptions{}};
    absl::StatusOr<registry::Reference> target = registry::ParseReference(remote);
    ASSERT_TRUE(target.ok());
    auto pushed = registry::PushImage(client, *store, "docker.io/library/pulled:1", *target,
                                      registry::PushOptions{});
    ASSERT_TRUE(pushed.ok()) << pushed.status();
  }
  fs::remove_all(home() / "images");

  absl::StatusOr<jobspec::CustomJob> done = RunJob(MakeContainerJob(remote, {1}, {}));
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded) << log_.str();
  EXPECT_EQ(testing::Slurp(job_dir_ / "logs/workerpool0-0.log"), "pulled-and-ran\n");
  absl::StatusOr<oci::Layout> store = oci::Layout::Open(home() / "images");
  ASSERT_TRUE(store.ok());
  EXPECT_TRUE(store->Resolve(remote).ok());
  ExpectNothingLeft();
}

}  // namespace
}  // namespace trainpkg::sdk
