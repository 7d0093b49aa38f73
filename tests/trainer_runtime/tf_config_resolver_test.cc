#include "trainer_runtime/tf_config_resolver.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::runtime {
namespace {

using Vars = std::map<std::string, std::string>;

using ::testing::ElementsAre;

TEST(TfConfigResolverTest, UnsetOrEmptyIsAbsent) {
  base::MapEnvironment env;
  EXPECT_FALSE(ResolveFromTfConfig(env)->has_value());
  env.Set("TF_CONFIG", "");
  EXPECT_FALSE(ResolveFromTfConfig(env)->has_value());
}

TEST(TfConfigResolverTest, ReadsClusterTaskAndTrial) {
  base::MapEnvironment env(
      {{"TF_CONFIG", R"({"cluster":{"chief":["c:2222"],"worker":["w0:2222","w1:2222"],)"
                     R"("ps":["p:2222"]},"task":{"type":"worker","index":1,"trial":"2"},)"
                     R"("job":{},"environment":"cloud"})"},
       {"CLOUD_ML_TRIAL_ID", "9"}});
  absl::StatusOr<std::optional<ClusterInfo>> info = ResolveFromTfConfig(env);
  ASSERT_THAT(info, IsOk());
  ASSERT_TRUE(info->has_value());
  const ClusterInfo& got = **info;
  EXPECT_EQ(got.source, "TF_CONFIG");
  EXPECT_EQ(got.task_type, "worker");
  EXPECT_EQ(got.task_index, 1);
  EXPECT_EQ(got.rank, 2);
  EXPECT_EQ(got.world_size, 3);
  EXPECT_FALSE(got.is_chief);
  EXPECT_EQ(got.coordinator_address, "c:2222");
  EXPECT_THAT(got.worker_addresses, ElementsAre("c:2222", "w0:2222", "w1:2222"));
  EXPECT_EQ(got.trial_id, "2");  // task.trial wins over CLOUD_ML_TRIAL_ID
}

TEST(TfConfigResolverTest, TrialFallsBackToCloudMlTrialId) {
  base::MapEnvironment env(
      {{"TF_CONFIG", R"({"cluster":{"worker":["a:1","b:1"]},"task":{"type":"worker","index":0}})"},
       {"CLOUD_ML_TRIAL_ID", "9"}});
  EXPECT_EQ((*ResolveFromTfConfig(env))->trial_id, "9");
}

std::string Error(std::string tf_config) {
  base::MapEnvironment env(Vars{{"TF_CONFIG", std::move(tf_config)}});
  absl::StatusOr<std::optional<ClusterInfo>> info = ResolveFromTfConfig(env);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(info.status().message());
}

TEST(TfConfigResolverTest, MalformedNamesTheVariableAndPath) {
  EXPECT_EQ(Error("{}"), "TF_CONFIG: cluster: missing");
  EXPECT_EQ(Error(R"({"cluster":{"worker":["a:1"]},"task":{"type":"worker","index":"0"}})"),
            "TF_CONFIG: task.index: expected a non-negative integer");
  EXPECT_EQ(Error(R"({"cluster":{"worker":["a:1"]},"task":{"type":"boss","index":0}})"),
            "TF_CONFIG: task.type: unknown task type \"boss\" (expected chief, worker, ps or "
            "evaluator)");
  EXPECT_EQ(Error(R"({"cluster":{"chief":["a:1"]},"task":{"type":"worker","index":0}})"),
            "TF_CONFIG: task.type: \"worker\" is not a key of cluster");
  EXPECT_EQ(Error("not json").substr(0, 24), "TF_CONFIG: invalid JSON:");
}

}  // namespace
}  // namespace trainpkg::runtime
