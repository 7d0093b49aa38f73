#include "trainer_runtime/ps/parameter_store.h"

#include <random>
#include <span>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/ps/partitioner.h"
#include "trainer_runtime/ps/shard_plan.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::ps {
namespace {

OptimizerConfig Config(const std::string& kind) {
  OptimizerConfig c;
  c.kind = kind;
  c.sgd.learning_rate = 0.1f;
  c.sgd.momentum = 0.9f;
  c.adam.learning_rate = 0.01f;
  c.adagrad.learning_rate = 0.1f;
  c.adagrad.initial_accumulator_value = 0.1f;
  return c;
}

// A 7 x 3 variable split into 3 shards (3, 2, 2 rows) on one store.
struct Sharded {
  ShardPlan plan;
  ParameterStore store;
};

std::vector<float> Gradient(std::mt19937& rng, size_t n) {
  std::normal_distribution<float> normal;
  std::vector<float> g(n);
  for (float& x : g) x = normal(rng);
  return g;
}

class PsMathTest : public ::testing::TestWithParam<std::string> {};

// The ps applies nn's optimizer to each shard: the result is the one nn's
// optimizer gives on the whole variable, bit for bit.
TEST_P(PsMathTest, ShardedUpdatesEqualNnOptimizerOnTheWholeVariable) {
  auto partitioner = FixedShardsPartitioner(3);
  auto plan = ShardPlan::Create({{"w", {7, 3}}}, partitioner->get(), 1);
  ASSERT_THAT(plan, IsOk());
  ParameterStore store;
  std::vector<ShardDef> defs;
  for (const Shard& s : plan->shards()) defs.push_back({s.id, s.name, s.size});
  ASSERT_THAT(store.Configure(defs, Config(GetParam())), IsOk());

  nn::Parameter reference("w", {7, 3});
  std::mt19937 rng(7);
  std::vector<float> initial = Gradient(rng, 21);
  std::copy(initial.begin(), initial.end(), reference.value.data());
  for (const Shard& s : plan->shards()) {
    ASSERT_THAT(store.Assign(s.id, 0, 0, std::span(initial).subspan(s.offset, s.size), 0), IsOk());
  }
  auto optimizer = MakeOptimizer(Config(GetParam()));
  ASSERT_THAT(optimizer, IsOk());
  for (int step = 0; step < 5; ++step) {
    std::vector<float> g = Gradient(rng, 21);
    std::copy(g.begin(), g.end(), reference.grad.data());
    nn::Parameter* list[] = {&reference};
    ASSERT_THAT((*optimizer)->Apply(list), IsOk());
    for (const Shard& s : plan->shards()) {
      ASSERT_THAT(store.ApplyGradient(s.id, std::span(g).subspan(s.offset, s.size)), IsOk());
    }
  }
  auto snapshot = store.Snapshot(false);
  ASSERT_THAT(snapshot, IsOk());
  for (const ShardSnapshot& shard : *snapshot) {
    const Shard& s = plan->shards()[static_cast<size_t>(shard.id)];
    EXPECT_EQ(shard.iterations, 5);
    for (int64_t i = 0; i < s.size; ++i) {
      EXPECT_EQ(shard.values[static_cast<size_t>(i)], reference.value.data()[s.offset + i])
          << GetParam() << " shard " << s.name << " element " << i;
    }
  }
}

// Snapshot with optimizer state, assigned to a fresh store, continues as
// the original does (what a resumed run relies on).
TEST_P(PsMathTest, SnapshotAssignedToAFreshStoreContinuesIdentically) {
  ParameterStore a, b;
  ASSERT_THAT(a.Configure({{0, "w", 6}}, Config(GetParam())), IsOk());
  ASSERT_THAT(b.Configure({{0, "w", 6}}, Config(GetParam())), IsOk());
  std::mt19937 rng(3);
  std::vector<float> init = Gradient(rng, 6);
  ASSERT_THAT(a.Assign(0, 0, 0, init, 0), IsOk());
  for (int i = 0; i < 3; ++i) ASSERT_THAT(a.ApplyGradient(0, Gradient(rng, 6)), IsOk());
  auto snap = a.Snapshot(true);
  ASSERT_THAT(snap, IsOk());
  const ShardSnapshot& s = (*snap)[0];
  ASSERT_THAT(b.Assign(0, 0, 0, s.values, s.iterations), IsOk());
  for (size_t k = 0; k < s.slots.size(); ++k) {
    ASSERT_THAT(b.Assign(0, static_cast<int>(k) + 1, 0, s.slots[k], s.iterations), IsOk());
  }
  std::vector<float> g = Gradient(rng, 6);
  ASSERT_THAT(a.ApplyGradient(0, g), IsOk());
  ASSERT_THAT(b.ApplyGradient(0, g), IsOk());
  EXPECT_EQ((*a.Snapshot(true))[0].values, (*b.Snapshot(true))[0].values);
  EXPECT_EQ((*b.Snapshot(false))[0].iterations, 4);
}

INSTANTIATE_TEST_SUITE_P(Optimizers, PsMathTest, ::testing::Values("sgd", "adam", "adagrad"));

TEST(ParameterStoreTest, ErrorsNameTheProblem) {
  ParameterStore store;
  EXPECT_EQ(store.ApplyGradient(0, std::vector<float>(2)).code(),
            absl::StatusCode::kFailedPrecondition);
  OptimizerConfig bad;
  bad.kind = "rmsprop";
  EXPECT_THAT(std::string(store.Configure({{0, "w", 2}}, bad).message()),
              ::testing::HasSubstr("sgd, adam or adagrad"));
  ASSERT_THAT(store.Configure({{0, "w", 2}}, Config("adam")), IsOk());
  EXPECT_THAT(store.Configure({{0, "w", 2}}, Config("adam")), IsOk());  // same shards: no-op
  EXPECT_EQ(store.Configure({{0, "w", 3}}, Config("adam")).code(),
            absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(store.ApplyGradient(1, std::vector<float>(2)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.ApplyGradient(0, std::vector<float>(3)).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Assign(0, 0, 1, std::vector<float>(2), 0).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(store.Assign(0, 3, 0, std::vector<float>(2), 0).code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainpkg::ps
