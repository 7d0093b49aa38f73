#include "trainer_runtime/cluster_spec_resolver.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::runtime {
namespace {

using Vars = std::map<std::string, std::string>;

using ::testing::ElementsAre;

constexpr char kCluster[] =
    R"("cluster":{"workerpool0":["c:2222"],"workerpool1":["w0:2222","w1:2222"],)"
    R"("workerpool2":["p:2222"],"workerpool3":["e:2222"]})";

ClusterInfo Resolve(std::string_view task) {
  base::MapEnvironment env(
      {{"CLUSTER_SPEC", "{" + std::string(kCluster) + R"(,"environment":"cloud","task":)" +
                            std::string(task) + "}"}});
  absl::StatusOr<std::optional<ClusterInfo>> info = ResolveFromClusterSpec(env);
  EXPECT_THAT(info, IsOk());
  EXPECT_TRUE(info.ok() && info->has_value());
  return info.ok() && info->has_value() ? **info : ClusterInfo{};
}

TEST(ClusterSpecResolverTest, UnsetIsAbsent) {
  base::MapEnvironment env;
  EXPECT_FALSE(ResolveFromClusterSpec(env)->has_value());
}

TEST(ClusterSpecResolverTest, PoolsMapToChiefWorkerPsEvaluator) {
  ClusterInfo chief = Resolve(R"({"type":"workerpool0","index":0})");
  EXPECT_EQ(chief.source, "CLUSTER_SPEC");
  EXPECT_EQ(chief.task_type, "chief");
  EXPECT_EQ(chief.rank, 0);
  EXPECT_TRUE(chief.is_chief);
  EXPECT_EQ(chief.world_size, 3);
  EXPECT_THAT(chief.worker_addresses, ElementsAre("c:2222", "w0:2222", "w1:2222"));

  ClusterInfo worker = Resolve(R"({"type":"workerpool1","index":1,"trial":"3"})");
  EXPECT_EQ(worker.task_type, "worker");
  EXPECT_EQ(worker.rank, 2);
  EXPECT_EQ(worker.trial_id, "3");

  ClusterInfo ps = Resolve(R"({"type":"workerpool2","index":0})");
  EXPECT_EQ(ps.task_type, "ps");
  EXPECT_EQ(ps.rank, -1);
  EXPECT_THAT(ps.ps_addresses, ElementsAre("p:2222"));

  ClusterInfo evaluator = Resolve(R"({"type":"workerpool3","index":0})");
  EXPECT_EQ(evaluator.task_type, "evaluator");
  EXPECT_EQ(evaluator.rank, -1);
  EXPECT_FALSE(evaluator.is_chief);
}

TEST(ClusterSpecResolverTest, WorkersOnlyMakeWorkerZeroChief) {
  base::MapEnvironment env(Vars{{"CLUSTER_SPEC", R"({"cluster":{"workerpool1":["a:1","b:1"]},)"
                                                 R"("task":{"type":"workerpool1","index":0}})"}});
  ClusterInfo info = **ResolveFromClusterSpec(env);
  EXPECT_EQ(info.task_type, "worker");
  EXPECT_EQ(info.rank, 0);
  EXPECT_TRUE(info.is_chief);
  EXPECT_EQ(info.world_size, 2);
}

std::string Error(std::string cluster_spec) {
  base::MapEnvironment env(Vars{{"CLUSTER_SPEC", std::move(cluster_spec)}});
  absl::StatusOr<std::optional<ClusterInfo>> info = ResolveFromClusterSpec(env);
  EXPECT_EQ(info.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(info.status().message());
}

TEST(ClusterSpecResolverTest, MalformedNamesTheVariableAndPath) {
  EXPECT_EQ(Error(R"({"cluster":{"workerpool0":["a:1"]},"task":{"type":"workerpool0"}})"),
            "CLUSTER_SPEC: task.index: missing");
  EXPECT_EQ(Error(R"({"cluster":{"workerpool0":["a:1"],"chief":["b:1"]},)"
                  R"("task":{"type":"workerpool0","index":0}})"),
            "CLUSTER_SPEC: cluster.chief: unknown worker pool (expected workerpool0 to "
            "workerpool3)");
  EXPECT_EQ(Error(R"({"cluster":{"workerpool0":["a:1","b:1"]},)"
                  R"("task":{"type":"workerpool0","index":0}})"),
            "CLUSTER_SPEC: cluster.workerpool0: 2 replicas; the primary pool has one");
  EXPECT_EQ(Error(R"({"cluster":{"workerpool2":["a:1"]},"task":{"type":"workerpool2","index":0}})"),
            "CLUSTER_SPEC: cluster: has neither workerpool0 nor workerpool1");
  EXPECT_EQ(Error(R"({"cluster":{"workerpool0":["a:1"]},"task":{"type":"chief","index":0}})"),
            "CLUSTER_SPEC: task.type: unknown worker pool \"chief\" (expected workerpool0 to "
            "workerpool3)");
  EXPECT_EQ(Error(R"({"cluster":{"workerpool0":["a:1"]},"task":{"type":"workerpool1","index":0}})"),
            "CLUSTER_SPEC: task.index: 0 is out of range for cluster.workerpool1 (0 replicas)");
  EXPECT_EQ(Error(R"({"cluster":{"workerpool0":["a:1"]},"task":{"type":"workerpool0","index":1}})"),
            "CLUSTER_SPEC: task.index: 1 is out of range for cluster.workerpool0 (1 replicas)");
}

}  // namespace
}  // namespace trainpkg::runtime
