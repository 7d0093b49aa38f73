#include "trainer_runtime/torchrun_resolver.h"

#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/internal/env_int.h"

namespace trainpkg::runtime {

absl::StatusOr<std::optional<ClusterInfo>> ResolveFromTorchrun(const base::Environment& env) {
  std::optional<std::string> rank_text = env.Get("RANK");
  if (!rank_text.has_value() || rank_text->empty()) return std::nullopt;
  constexpr std::string_view kWhy = "RANK is set, so the torchrun variables are expected";
  TP_ASSIGN_OR_RETURN(std::string world_text, internal::RequireEnv(env, "WORLD_SIZE", kWhy));
  TP_ASSIGN_OR_RETURN(std::string master_addr, internal::RequireEnv(env, "MASTER_ADDR", kWhy));
  TP_ASSIGN_OR_RETURN(std::string port_text, internal::RequireEnv(env, "MASTER_PORT", kWhy));

  TP_ASSIGN_OR_RETURN(int64_t rank, internal::ParseEnvInt("RANK", *rank_text, 0));
  TP_ASSIGN_OR_RETURN(int64_t world_size, internal::ParseEnvInt("WORLD_SIZE", world_text, 1));
  TP_ASSIGN_OR_RETURN(int64_t port, internal::ParseEnvInt("MASTER_PORT", port_text, 1, 65535));
  TP_ASSIGN_OR_RETURN(int64_t local_rank,
                      internal::ParseEnvInt("LOCAL_RANK", env.Get("LOCAL_RANK").value_or("0"), 0));
  if (rank >= world_size) {
    return absl::InvalidArgumentError(
        fmt::format("RANK: {} is not below WORLD_SIZE {}", rank, world_size));
  }

  ClusterInfo info;
  info.source = "torchrun";
  info.task_type = "worker";
  info.task_index = rank;
  info.rank = rank;
  info.world_size = world_size;
  info.is_chief = rank == 0;
  bool ipv6 = master_addr.find(':') != std::string::npos && !master_addr.starts_with('[');
  info.coordinator_address =
      ipv6 ? fmt::format("[{}]:{}", master_addr, port) : fmt::format("{}:{}", master_addr, port);
  info.local_rank = local_rank;
  info.trial_id = env.Get("CLOUD_ML_TRIAL_ID").value_or("");
  return info;
}

}  // namespace trainpkg::runtime
