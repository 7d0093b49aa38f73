#include "jobspec/scale_tier.h"

#include <array>
#include <utility>

#include "absl/strings/ascii.h"
#include "base/check.h"
#include "base/closest_match.h"
#include "base/utf8.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace trainpkg::jobspec {
namespace {

constexpr std::array<std::pair<ScaleTier, std::string_view>, 6> kTiers = {{
    {ScaleTier::kBasic, "BASIC"},
    {ScaleTier::kStandard1, "STANDARD_1"},
    {ScaleTier::kPremium1, "PREMIUM_1"},
    {ScaleTier::kBasicGpu, "BASIC_GPU"},
    {ScaleTier::kBasicTpu, "BASIC_TPU"},
    {ScaleTier::kCustom, "CUSTOM"},
}};

constexpr std::array<std::string_view, kTiers.size()> kTierNames = [] {
  std::array<std::string_view, kTiers.size()> names;
  for (size_t i = 0; i < kTiers.size(); ++i) names[i] = kTiers[i].second;
  return names;
}();

// Replicas of one kind: how many and on what machine.
struct Replicas {
  int64_t count = 0;
  std::string_view machine_type;
  std::string_view accelerator_type = {};
  int32_t accelerator_count = 0;
};

// One tier's cluster in pool order: master, workers, parameter servers.
using TierTable = std::array<Replicas, 3>;

// AI Platform's table (docs/adr/2026-11-27-scale-tiers.md cites it).
TierTable FixedTier(ScaleTier tier) {
  switch (tier) {
    case ScaleTier::kBasic:
      return {{{1, "n1-standard-4"}, {}, {}}};
    case ScaleTier::kStandard1:
      return {{{1, "n1-highcpu-8"}, {4, "n1-highcpu-8"}, {3, "n1-standard-4"}}};
    case ScaleTier::kPremium1:
      return {{{1, "n1-highcpu-16"}, {19, "n1-highcpu-16"}, {11, "n1-highmem-8"}}};
    case ScaleTier::kBasicGpu:
      return {{{1, "n1-standard-8", "NVIDIA_TESLA_K80", 1}, {}, {}}};
    case ScaleTier::kBasicTpu:
    case ScaleTier::kCustom:
      break;
  }
  TP_CHECK(false, "scale tier {} has no fixed table", static_cast<int>(tier));
  return {};
}

WorkerPoolSpec PoolForReplicas(const Replicas& replicas) {
  WorkerPoolSpec pool;
  if (replicas.count == 0) return pool;
  pool.replica_count = replicas.count;
  MachineSpec& machine = pool.machine_spec.emplace();
  machine.machine_type = replicas.machine_type;
  machine.accelerator_type = replicas.accelerator_type;
  machine.accelerator_count = replicas.accelerator_count;
  return pool;
}

// One replica kind of CUSTOM, checked as gcloud checks its flag groups: the
// machine type and the count come together, the count is 1 or more.
// `flag` is the flags' prefix ("parameter-server"), `noun` the replica's name.
absl::StatusOr<Replicas> CustomReplicas(std::string_view flag, std::string_view noun,
                                        const std::string& machine_type,
                                        const std::optional<int64_t>& count) {
  if (machine_type.empty() && !count.has_value()) return Replicas{};
  if (machine_type.empty()) {
    return absl::InvalidArgumentError(fmt::format(
        "--{0}-count needs --{0}-machine-type: the machine type of every {1}", flag, noun));
  }
  if (!count.has_value()) {
    return absl::InvalidArgumentError(
        fmt::format("--{0}-machine-type needs --{0}-count: how many {1}s, 1 or more", flag, noun));
  }
  if (*count < 1) {
    return absl::InvalidArgumentError(
        fmt::format("--{}-count must be 1 or more; got {}", flag, *count));
  }
  return Replicas{.count = *count, .machine_type = machine_type};
}

absl::StatusOr<std::vector<WorkerPoolSpec>> CustomPools(const CustomTierMachines& machines) {
  if (machines.master_machine_type.empty()) {
    return absl::InvalidArgumentError(
        "--master-machine-type is required with --scale-tier CUSTOM: the machine type of the "
        "master (pool 0), e.g. n1-standard-4");
  }
  std::array<absl::StatusOr<Replicas>, 3> others = {
      CustomReplicas("worker", "worker", machines.worker_machine_type, machines.worker_count),
      CustomReplicas("parameter-server", "parameter server", machines.parameter_server_machine_type,
                     machines.parameter_server_count),
      CustomReplicas("evaluator", "evaluator", machines.evaluator_machine_type,
                     machines.evaluator_count),
  };
  std::vector<WorkerPoolSpec> pools = {
      PoolForReplicas(Replicas{.count = 1, .machine_type = machines.master_machine_type})};
  for (absl::StatusOr<Replicas>& replicas : others) {
    if (!replicas.ok()) return replicas.status();
    pools.push_back(PoolForReplicas(*replicas));
  }
  // Trailing empty pools are dropped and inner ones kept as placeholders, as
  // the Python SDK builds workerPoolSpecs: a pool's position is its role.
  while (pools.back().IsEmpty()) pools.pop_back();
  return pools;
}

// The first CUSTOM flag given, for the error of a fixed tier.
std::string_view FirstCustomFlag(const CustomTierMachines& machines) {
  if (!machines.master_machine_type.empty()) return "--master-machine-type";
  if (!machines.worker_machine_type.empty()) return "--worker-machine-type";
  if (machines.worker_count.has_value()) return "--worker-count";
  if (!machines.parameter_server_machine_type.empty()) return "--parameter-server-machine-type";
  if (machines.parameter_server_count.has_value()) return "--parameter-server-count";
  if (!machines.evaluator_machine_type.empty()) return "--evaluator-machine-type";
  return "--evaluator-count";
}

}  // namespace

bool CustomTierMachines::IsEmpty() const {
  return master_machine_type.empty() && worker_machine_type.empty() && !worker_count &&
         parameter_server_machine_type.empty() && !parameter_server_count &&
         evaluator_machine_type.empty() && !evaluator_count;
}

absl::StatusOr<ScaleTier> ParseScaleTier(std::string_view name) {
  std::string normalized(name);
  absl::AsciiStrToUpper(&normalized);
  for (char& c : normalized) {
    if (c == '-') c = '_';
  }
  for (const auto& [tier, tier_name] : kTiers) {
    if (normalized == tier_name) return tier;
  }
  if (base::FirstInvalidUtf8(name).has_value()) {
    return absl::InvalidArgumentError(
        fmt::format("--scale-tier: the tier name is not valid UTF-8; valid tiers: {}",
                    fmt::join(kTierNames, ", ")));
  }
  return absl::InvalidArgumentError(fmt::format(
      "--scale-tier: unknown scale tier '{}'{}; valid tiers: {} (case and '-' or '_' as you like)",
      name, base::DidYouMean(normalized, kTierNames), fmt::join(kTierNames, ", ")));
}

std::string_view ScaleTierName(ScaleTier tier) {
  for (const auto& [candidate, name] : kTiers) {
    if (candidate == tier) return name;
  }
  TP_CHECK(false, "scale tier {} has no name", static_cast<int>(tier));
  return {};
}

absl::StatusOr<std::vector<WorkerPoolSpec>> ScaleTierPools(ScaleTier tier,
                                                           const CustomTierMachines& machines) {
  if (tier == ScaleTier::kBasicTpu) {
    return absl::InvalidArgumentError(
        "--scale-tier BASIC_TPU runs the job on a Cloud TPU, and no trainpkg backend runs "
        "replicas on TPUs (the trainer runtime's collectives are Gloo on CPUs and NCCL on NVIDIA "
        "GPUs); use BASIC_GPU, CUSTOM or --worker-pool-spec");
  }
  if (tier == ScaleTier::kCustom) return CustomPools(machines);
  if (!machines.IsEmpty()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} is for --scale-tier CUSTOM; {} fixes its machines and counts (use CUSTOM to choose "
        "them)",
        FirstCustomFlag(machines), ScaleTierName(tier)));
  }
  std::vector<WorkerPoolSpec> pools;
  for (const Replicas& replicas : FixedTier(tier)) pools.push_back(PoolForReplicas(replicas));
  while (pools.back().IsEmpty()) pools.pop_back();
  return pools;
}

}  // namespace trainpkg::jobspec
