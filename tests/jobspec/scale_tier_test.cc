// Scale tiers against AI Platform's table (docs/adr/2026-11-27-scale-tiers.md).
#include "jobspec/scale_tier.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {
namespace {

using ::testing::HasSubstr;

// One pool as the table reads: replicas, machine type, accelerator.
struct Row {
  int64_t replicas;
  std::string machine_type;
  std::string accelerator_type = "";
  int32_t accelerator_count = 0;
  bool operator==(const Row&) const = default;
};

void PrintTo(const Row& row, std::ostream* out) {
  *out << row.replicas << " x " << row.machine_type;
  if (!row.accelerator_type.empty())
    *out << " + " << row.accelerator_count << " x " << row.accelerator_type;
}

// The pools as rows; a placeholder pool is {0, ""}.
std::vector<Row> Rows(const std::vector<WorkerPoolSpec>& pools) {
  std::vector<Row> rows;
  for (const WorkerPoolSpec& pool : pools) {
    EXPECT_FALSE(pool.container_spec.has_value() || pool.python_package_spec.has_value())
        << "the tier sets machines only";
    if (pool.IsEmpty()) {
      rows.push_back({0, ""});
      continue;
    }
    rows.push_back({pool.replica_count, pool.machine_spec->machine_type,
                    pool.machine_spec->accelerator_type, pool.machine_spec->accelerator_count});
  }
  return rows;
}

std::vector<WorkerPoolSpec> Pools(std::string_view tier, const CustomTierMachines& machines = {}) {
  absl::StatusOr<ScaleTier> parsed = ParseScaleTier(tier);
  EXPECT_THAT(parsed, IsOk());
  if (!parsed.ok()) return {};
  absl::StatusOr<std::vector<WorkerPoolSpec>> pools = ScaleTierPools(*parsed, machines);
  EXPECT_THAT(pools, IsOk());
  return pools.value_or(std::vector<WorkerPoolSpec>{});
}

std::string CustomError(const CustomTierMachines& machines) {
  absl::StatusOr<std::vector<WorkerPoolSpec>> pools = ScaleTierPools(ScaleTier::kCustom, machines);
  EXPECT_FALSE(pools.ok());
  EXPECT_EQ(pools.status().code(), absl::StatusCode::kInvalidArgument);
  return std::string(pools.status().message());
}

TEST(ScaleTierTest, Standard1IsOneMasterFourWorkersThreeParameterServers) {
  EXPECT_EQ(Rows(Pools("STANDARD_1")),
            (std::vector<Row>{{1, "n1-highcpu-8"}, {4, "n1-highcpu-8"}, {3, "n1-standard-4"}}));
}

TEST(ScaleTierTest, EveryFixedTierAsTheTableHasIt) {
  EXPECT_EQ(Rows(Pools("BASIC")), (std::vector<Row>{{1, "n1-standard-4"}}));
  EXPECT_EQ(Rows(Pools("PREMIUM_1")),
            (std::vector<Row>{{1, "n1-highcpu-16"}, {19, "n1-highcpu-16"}, {11, "n1-highmem-8"}}));
  EXPECT_EQ(Rows(Pools("BASIC_GPU")),
            (std::vector<Row>{{1, "n1-standard-8", "NVIDIA_TESLA_K80", 1}}));
}

TEST(ScaleTierTest, NamesAsGcloudTakesThem) {
  for (std::string_view name : {"standard-1", "Standard_1", "STANDARD-1", "standard_1"}) {
    absl::StatusOr<ScaleTier> tier = ParseScaleTier(name);
    ASSERT_THAT(tier, IsOk()) << name << ": " << tier.status();
    EXPECT_EQ(*tier, ScaleTier::kStandard1) << name;
  }
  EXPECT_EQ(*ParseScaleTier("basic-gpu"), ScaleTier::kBasicGpu);
  EXPECT_EQ(*ParseScaleTier("premium-1"), ScaleTier::kPremium1);
  EXPECT_EQ(*ParseScaleTier("custom"), ScaleTier::kCustom);
  EXPECT_EQ(ScaleTierName(ScaleTier::kPremium1), "PREMIUM_1");
}

TEST(ScaleTierTest, MisspelledTierSuggestsTheNearest) {
  absl::StatusOr<ScaleTier> tier = ParseScaleTier("standrd-1");
  ASSERT_FALSE(tier.ok());
  EXPECT_EQ(tier.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(tier.status().message(), HasSubstr("--scale-tier: unknown scale tier 'standrd-1'"));
  EXPECT_THAT(tier.status().message(), HasSubstr("did you mean 'STANDARD_1'?"));
  EXPECT_THAT(tier.status().message(), HasSubstr("BASIC, STANDARD_1, PREMIUM_1"));
  EXPECT_FALSE(ParseScaleTier("").ok());
  EXPECT_FALSE(ParseScaleTier("STANDARD_2").ok());
}

TEST(ScaleTierTest, TpuTierIsRefusedWithTheReason) {
  absl::StatusOr<std::vector<WorkerPoolSpec>> pools = ScaleTierPools(ScaleTier::kBasicTpu, {});
  ASSERT_FALSE(pools.ok());
  EXPECT_EQ(pools.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(pools.status().message(), HasSubstr("BASIC_TPU"));
  EXPECT_THAT(pools.status().message(), HasSubstr("Cloud TPU"));
  EXPECT_THAT(pools.status().message(), HasSubstr("no trainpkg backend runs replicas on TPUs"));
}

TEST(ScaleTierTest, CustomBuildsThePoolsGiven) {
  CustomTierMachines machines{.master_machine_type = "n1-highcpu-16",
                              .worker_machine_type = "n1-highcpu-16",
                              .worker_count = 9,
                              .parameter_server_machine_type = "n1-highmem-8",
                              .parameter_server_count = 3,
                              .evaluator_machine_type = "n1-highcpu-16",
                              .evaluator_count = 1};
  EXPECT_EQ(
      Rows(Pools("custom", machines)),
      (std::vector<Row>{
          {1, "n1-highcpu-16"}, {9, "n1-highcpu-16"}, {3, "n1-highmem-8"}, {1, "n1-highcpu-16"}}));
}

TEST(ScaleTierTest, CustomMasterAloneIsOnePoolAndAGapIsAPlaceholder) {
  EXPECT_EQ(Rows(Pools("CUSTOM", {.master_machine_type = "n1-standard-4"})),
            (std::vector<Row>{{1, "n1-standard-4"}}));
  std::vector<WorkerPoolSpec> pools =
      Pools("CUSTOM", {.master_machine_type = "n1-standard-4",
                       .parameter_server_machine_type = "n1-highmem-8",
                       .parameter_server_count = 2});
  EXPECT_EQ(Rows(pools), (std::vector<Row>{{1, "n1-standard-4"}, {0, ""}, {2, "n1-highmem-8"}}));
  EXPECT_TRUE(pools[1].IsEmpty());
}

TEST(ScaleTierTest, CustomRulesAsAiPlatformAndGcloudCheckThem) {
  EXPECT_THAT(CustomError({.worker_machine_type = "n1-standard-4", .worker_count = 2}),
              HasSubstr("--master-machine-type is required with --scale-tier CUSTOM"));
  EXPECT_THAT(CustomError({.master_machine_type = "n1-standard-4", .worker_count = 2}),
              HasSubstr("--worker-count needs --worker-machine-type"));
  EXPECT_THAT(
      CustomError({.master_machine_type = "n1-standard-4", .worker_machine_type = "n1-standard-4"}),
      HasSubstr("--worker-machine-type needs --worker-count"));
  EXPECT_THAT(CustomError({.master_machine_type = "n1-standard-4",
                           .worker_machine_type = "n1-standard-4",
                           .worker_count = 0}),
              HasSubstr("--worker-count must be 1 or more; got 0"));
  EXPECT_THAT(CustomError({.master_machine_type = "n1-standard-4", .parameter_server_count = 1}),
              HasSubstr("--parameter-server-count needs --parameter-server-machine-type"));
  EXPECT_THAT(CustomError({.master_machine_type = "n1-standard-4",
                           .evaluator_machine_type = "n1-standard-4",
                           .evaluator_count = -1}),
              HasSubstr("--evaluator-count must be 1 or more; got -1"));
}

TEST(ScaleTierTest, FixedTierRefusesCustomFlags) {
  absl::StatusOr<std::vector<WorkerPoolSpec>> pools =
      ScaleTierPools(ScaleTier::kStandard1, {.worker_count = 8});
  ASSERT_FALSE(pools.ok());
  EXPECT_THAT(
      pools.status().message(),
      HasSubstr("--worker-count is for --scale-tier CUSTOM; STANDARD_1 fixes its machines"));
}

}  // namespace
}  // namespace trainpkg::jobspec
