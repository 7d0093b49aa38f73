#include "trainer_runtime/coordination/internal/coordination_state.h"

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "fmt/format.h"

namespace trainpkg::coordination::internal {
namespace {

std::string Seconds(absl::Duration d) {
  return absl::FormatDuration(absl::Trunc(d, absl::Milliseconds(100)));
}

}  // namespace

CoordinationState::CoordinationState(StateOptions options)
    : options_(std::move(options)), ranks_(static_cast<size_t>(options_.world_size)) {
  if (options_.world_size < 1 ||
      options_.rank_names.size() != static_cast<size_t>(options_.world_size)) {
    fmt::print(stderr, "CoordinationState: world size {} with {} rank names\n", options_.world_size,
               options_.rank_names.size());
    std::abort();
  }
}

absl::Status CoordinationState::CheckRank(int rank) const {
  if (rank < 0 || rank >= options_.world_size) {
    return absl::InvalidArgumentError(
        fmt::format("rank {} is outside the job's {} ranks", rank, options_.world_size));
  }
  return absl::OkStatus();
}

absl::Status CoordinationState::Interrupted() const {
  if (!failure_.ok()) return failure_;
  if (shut_down_) return absl::UnavailableError("the coordinator is shutting down");
  return absl::OkStatus();
}

void CoordinationState::Touch(int rank) {
  ranks_[static_cast<size_t>(rank)].last_seen = absl::Now();
}

void CoordinationState::Fail(absl::Status status) {
  if (failure_.ok()) failure_ = std::move(status);
}

std::string CoordinationState::NamesWhere(const std::vector<int>& ranks) const {
  std::string names;
  for (int rank : ranks) {
    if (!names.empty()) names += ", ";
    names += options_.rank_names[static_cast<size_t>(rank)];
  }
  return names;
}

absl::Status CoordinationState::Register(int rank) {
  if (auto status = CheckRank(rank); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  if (auto status = Interrupted(); !status.ok()) return status;
  RankState& self = ranks_[static_cast<size_t>(rank)];
  // A rank may register again (a retried call): it is counted once.
  if (!self.joined) {
    self.joined = true;
    ++joined_;
  }
  Touch(rank);
  auto done = [this] {
    mu_.AssertHeld();
    return joined_ == options_.world_size || !Interrupted().ok();
  };
  mu_.AwaitWithDeadline(absl::Condition(&done), options_.start + options_.rendezvous_timeout);
  // Checked here too, not only by the monitor: the waiter that times out names
  // the missing ranks at once instead of up to one check period later.
  FailIfRendezvousExpired(absl::Now());
  return Interrupted();
}

absl::Status CoordinationState::Heartbeat(int rank) {
  if (auto status = CheckRank(rank); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  // No Interrupted() check: after a failure the heartbeat is how a rank
  // learns of it, so it must still be answered (with the failure).
  Touch(rank);
  return failure_;
}

absl::Status CoordinationState::Set(int rank, const std::string& key, std::string value) {
  if (auto status = CheckRank(rank); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  if (auto status = Interrupted(); !status.ok()) return status;
  Touch(rank);
  store_[key] = std::move(value);
  return absl::OkStatus();
}

absl::StatusOr<std::string> CoordinationState::Get(int rank, const std::string& key,
                                                   absl::Duration timeout) {
  if (auto status = CheckRank(rank); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  Touch(rank);
  auto done = [this, &key] {
    mu_.AssertHeld();
    return store_.contains(key) || !Interrupted().ok();
  };
  mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
  if (auto status = Interrupted(); !status.ok()) return status;
  auto it = store_.find(key);
  if (it == store_.end()) {
    return absl::DeadlineExceededError(
        fmt::format("key '{}' was not set within {}", key, Seconds(timeout)));
  }
  return it->second;
}

absl::StatusOr<int64_t> CoordinationState::Add(int rank, const std::string& key, int64_t delta) {
  if (auto status = CheckRank(rank); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  if (auto status = Interrupted(); !status.ok()) return status;
  Touch(rank);
  int64_t value = 0;
  if (auto it = store_.find(key); it != store_.end()) {
    const std::string& text = it->second;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (ec != std::errc() || end != text.data() + text.size()) {
      return absl::InvalidArgumentError(fmt::format("key '{}' does not hold an integer", key));
    }
  }
  int64_t sum = 0;
  if (__builtin_add_overflow(value, delta, &sum)) {
    return absl::OutOfRangeError(fmt::format(
        "key '{}' holds {}; adding {} leaves the 64-bit integer range (the key keeps its value)",
        key, value, delta));
  }
  store_[key] = std::to_string(sum);
  return sum;
}

absl::Status CoordinationState::Barrier(int rank, const std::string& name, absl::Duration timeout) {
  if (auto status = CheckRank(rank); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  if (auto status = Interrupted(); !status.ok()) return status;
  Touch(rank);
  BarrierState& barrier = barriers_[name];
  if (barrier.entered.empty())
    barrier.entered.assign(static_cast<size_t>(options_.world_size), false);
  barrier.entered[static_cast<size_t>(rank)] = true;
  const int64_t round = barrier.round;
  auto missing = [&] {
    std::vector<int> ranks;
    for (int r = 0; r < options_.world_size; ++r) {
      if (!barrier.entered[static_cast<size_t>(r)]) ranks.push_back(r);
    }
    return ranks;
  };
  if (missing().empty()) {
    // The waiters watch the round, not the flags (cleared here for the next
    // round), so a fast rank that enters the next round cannot confuse them.
    ++barrier.round;
    barrier.entered.assign(barrier.entered.size(), false);
    return absl::OkStatus();
  }
  auto departed = [&] {
    std::vector<int> ranks;
    for (int r : missing()) {
      if (ranks_[static_cast<size_t>(r)].departed) ranks.push_back(r);
    }
    return ranks;
  };
  auto done = [&] {
    mu_.AssertHeld();
    return barrier.round != round || !Interrupted().ok() || !departed().empty();
  };
  mu_.AwaitWithTimeout(absl::Condition(&done), timeout);
  if (barrier.round != round) return absl::OkStatus();
  // A rank that stops waiting withdraws: ranks that arrive later must not
  // complete a barrier with a rank that is no longer in it.
  barrier.entered[static_cast<size_t>(rank)] = false;
  if (auto status = Interrupted(); !status.ok()) return status;
  if (auto gone = departed(); !gone.empty()) {
    return absl::FailedPreconditionError(
        fmt::format("barrier '{}' cannot complete: {} already finished", name, NamesWhere(gone)));
  }
  return absl::DeadlineExceededError(fmt::format("barrier '{}' timed out after {} waiting for {}",
                                                 name, Seconds(timeout), NamesWhere(missing())));
}

absl::Status CoordinationState::Goodbye(int rank) {
  if (auto status = CheckRank(rank); !status.ok()) return status;
  absl::MutexLock lock(&mu_);
  ranks_[static_cast<size_t>(rank)].departed = true;
  return absl::OkStatus();
}

void CoordinationState::CheckLiveness(absl::Time now) {
  absl::MutexLock lock(&mu_);
  if (!failure_.ok() || shut_down_) return;
  std::vector<int> silent;
  absl::Duration longest;
  for (int r = 0; r < options_.world_size; ++r) {
    RankState& rank = ranks_[static_cast<size_t>(r)];
    // Ranks that said goodbye stopped heartbeating on purpose; ranks not yet
    // joined are the rendezvous timeout's business.
    if (!rank.joined || rank.departed) continue;
    const absl::Duration quiet = now - rank.last_seen;
    if (quiet > options_.heartbeat_timeout) {
      silent.push_back(r);
      // Marked so WaitForGoodbyes does not wait for a rank that will never come.
      rank.dead = true;
      longest = std::max(longest, quiet);
    }
  }
  if (!silent.empty()) {
    Fail(absl::AbortedError(fmt::format("{} missed heartbeats for {} (timeout {})",
                                        NamesWhere(silent), Seconds(longest),
                                        Seconds(options_.heartbeat_timeout))));
    return;
  }
  FailIfRendezvousExpired(now);
}

void CoordinationState::FailIfRendezvousExpired(absl::Time now) {
  if (joined_ == options_.world_size || now < options_.start + options_.rendezvous_timeout) return;
  std::vector<int> missing;
  for (int r = 0; r < options_.world_size; ++r) {
    RankState& rank = ranks_[static_cast<size_t>(r)];
    if (rank.joined) continue;
    rank.dead = true;
    missing.push_back(r);
  }
  Fail(absl::AbortedError(fmt::format("{} did not join within {}", NamesWhere(missing),
                                      Seconds(options_.rendezvous_timeout))));
}

absl::Status CoordinationState::WaitForGoodbyes(absl::Time deadline) {
  absl::MutexLock lock(&mu_);
  auto running = [this] {
    mu_.AssertHeld();
    std::vector<int> ranks;
    for (int r = 0; r < options_.world_size; ++r) {
      const RankState& rank = ranks_[static_cast<size_t>(r)];
      if (!rank.departed && !rank.dead) ranks.push_back(r);
    }
    return ranks;
  };
  auto done = [&] {
    mu_.AssertHeld();
    return running().empty();
  };
  if (mu_.AwaitWithDeadline(absl::Condition(&done), deadline)) return absl::OkStatus();
  return absl::DeadlineExceededError(
      fmt::format("{} did not finish before the coordinator stopped", NamesWhere(running())));
}

void CoordinationState::Shutdown() {
  absl::MutexLock lock(&mu_);
  shut_down_ = true;
}

absl::Status CoordinationState::JobStatus() const {
  absl::MutexLock lock(&mu_);
  return failure_;
}

}  // namespace trainpkg::coordination::internal
