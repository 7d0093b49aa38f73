#include "trainer_runtime/collectives/internal/subgroup_client.h"

#include <algorithm>
#include <utility>

#include "absl/time/clock.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::collectives::internal {

SubgroupClient::SubgroupClient(coordination::CoordinationClient& job, std::vector<int> members,
                               std::string key_prefix)
    : job_(job), members_(std::move(members)), prefix_(std::move(key_prefix)) {
  rank_ =
      static_cast<int>(std::find(members_.begin(), members_.end(), job.rank()) - members_.begin());
}

const std::string& SubgroupClient::RankName(int rank) const {
  return job_.RankName(members_[static_cast<size_t>(rank)]);
}

absl::Status SubgroupClient::Set(std::string_view key, std::string_view value) {
  return job_.Set(prefix_ + std::string(key), value);
}

absl::StatusOr<std::string> SubgroupClient::Get(std::string_view key, absl::Duration timeout) {
  return job_.Get(prefix_ + std::string(key), timeout);
}

absl::StatusOr<int64_t> SubgroupClient::Add(std::string_view key, int64_t delta) {
  return job_.Add(prefix_ + std::string(key), delta);
}

absl::Status SubgroupClient::Barrier(std::string_view name, absl::Duration timeout) {
  const int64_t round = barrier_rounds_[std::string(name)]++;
  // A fresh key per round instead of a counter reset: a slow rank may still be
  // reading round n's count while fast ones have entered round n+1.
  const std::string key = fmt::format("barrier/{}/{}", name, round);
  TP_ASSIGN_OR_RETURN(int64_t arrived, Add(key, 1));
  const absl::Time deadline = absl::Now() + timeout;
  while (arrived < world_size()) {
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError(fmt::format("barrier {}: {} of {} ranks arrived within {}",
                                                     name, arrived, world_size(),
                                                     absl::FormatDuration(timeout)));
    }
    TP_RETURN_IF_ERROR(job_.JobStatus());
    absl::SleepFor(absl::Milliseconds(2));
    TP_ASSIGN_OR_RETURN(arrived, Add(key, 0));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::collectives::internal
