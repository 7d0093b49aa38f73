#include "trainer_runtime/collectives/hierarchical_communicator.h"

#include <algorithm>
#include <cstring>
#include <map>
#include <span>
#include <utility>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/collectives/internal/subgroup_client.h"

namespace trainpkg::collectives {
namespace {

using internal::SubgroupClient;

// A span of T seen as the floats it is made of (for byte-exact copies).
template <typename T>
std::span<float> AsFloats(std::span<T> data) {
  static_assert(sizeof(T) % sizeof(float) == 0);
  return {reinterpret_cast<float*>(data.data()), data.size() * (sizeof(T) / sizeof(float))};
}

class HierarchicalCommunicator final : public Communicator {
 public:
  HierarchicalCommunicator(int rank, std::vector<std::vector<int>> groups, int my_group,
                           std::unique_ptr<SubgroupClient> local_client,
                           std::unique_ptr<Communicator> local,
                           std::unique_ptr<SubgroupClient> leaders_client,
                           std::unique_ptr<Communicator> leaders)
      : rank_(rank),
        groups_(std::move(groups)),
        my_group_(my_group),
        local_client_(std::move(local_client)),
        local_(std::move(local)),
        leaders_client_(std::move(leaders_client)),
        leaders_(std::move(leaders)) {
    for (const std::vector<int>& members : groups_) {
      size_ += static_cast<int>(members.size());
      largest_ = std::max(largest_, members.size());
    }
  }

  ~HierarchicalCommunicator() override {
    // The transports before the clients they use.
    leaders_.reset();
    local_.reset();
  }

  int rank() const override { return rank_; }
  int size() const override { return size_; }

  absl::Status AllReduce(std::span<float> data, ReduceOp op) override {
    return AllReduceOf(data, op);
  }
  absl::Status AllReduce(std::span<double> data, ReduceOp op) override {
    return AllReduceOf(data, op);
  }

  absl::Status Broadcast(std::span<float> data, int root) override {
    if (root < 0 || root >= size()) {
      return absl::InvalidArgumentError(
          fmt::format("broadcast root {} is outside the {} ranks", root, size()));
    }
    int root_group = 0;
    int root_local = 0;
    for (size_t g = 0; g < groups_.size(); ++g) {
      const auto it = std::find(groups_[g].begin(), groups_[g].end(), root);
      if (it != groups_[g].end()) {
        root_group = static_cast<int>(g);
        root_local = static_cast<int>(it - groups_[g].begin());
      }
    }
    // The root's group goes first so that its leader holds the data before the
    // leaders' broadcast; every other group then takes it from its own leader.
    if (my_group_ == root_group) TP_RETURN_IF_ERROR(local_->Broadcast(data, root_local));
    if (leaders_ != nullptr) TP_RETURN_IF_ERROR(leaders_->Broadcast(data, root_group));
    if (my_group_ != root_group) TP_RETURN_IF_ERROR(local_->Broadcast(data, 0));
    return absl::OkStatus();
  }

  absl::Status AllGather(std::span<const float> input, std::span<float> output) override {
    const size_t n = input.size();
    if (output.size() != n * static_cast<size_t>(size())) {
      return absl::InvalidArgumentError(
          fmt::format("allgather of {} floats from {} ranks needs {} output floats, got {}", n,
                      size(), n * static_cast<size_t>(size()), output.size()));
    }
    // Padding gives every leader the same block size, which an allgather needs;
    // the padding is dropped when the blocks are scattered to ranks below.
    // The group's inputs, padded to the largest group, then every group's.
    std::vector<float> group(largest_ * n);
    TP_RETURN_IF_ERROR(
        local_->AllGather(input, std::span<float>(group).first(groups_[my_group_].size() * n)));
    if (groups_.size() == 1) {  // one group: it is the job, in rank order
      std::memcpy(output.data(), group.data(), output.size() * sizeof(float));
      return absl::OkStatus();
    }
    if (leaders_ != nullptr) {
      std::vector<float> all(groups_.size() * largest_ * n);
      TP_RETURN_IF_ERROR(leaders_->AllGather(group, all));
      for (size_t g = 0; g < groups_.size(); ++g) {
        for (size_t j = 0; j < groups_[g].size(); ++j) {
          std::memcpy(output.data() + static_cast<size_t>(groups_[g][j]) * n,
                      all.data() + (g * largest_ + j) * n, n * sizeof(float));
        }
      }
    }
    // Only leaders hold the job's output; local rank 0 is the group's leader.
    return local_->Broadcast(output, 0);
  }

  absl::Status Barrier() override {
    // The first barrier tells the leader that its group has arrived; the last
    // keeps the group waiting until the leaders have met, so no rank leaves
    // before every rank of the job has entered.
    TP_RETURN_IF_ERROR(local_->Barrier());
    if (leaders_ != nullptr) TP_RETURN_IF_ERROR(leaders_->Barrier());
    return local_->Barrier();
  }

 private:
  template <typename T>
  absl::Status AllReduceOf(std::span<T> data, ReduceOp op) {
    // Sums at both levels: a mean must divide the job's total once, by the
    // job's size, not each group's sum by its group's size.
    TP_RETURN_IF_ERROR(local_->AllReduce(data, ReduceOp::kSum));
    if (leaders_ != nullptr) TP_RETURN_IF_ERROR(leaders_->AllReduce(data, ReduceOp::kSum));
    // Only leaders hold the total after the leaders' allreduce. The broadcast
    // copies bytes, so a double travels as two floats unchanged.
    TP_RETURN_IF_ERROR(local_->Broadcast(AsFloats(data), 0));
    if (op == ReduceOp::kMean) {
      const T n = static_cast<T>(size());
      for (T& x : data) x /= n;
    }
    return absl::OkStatus();
  }

  const int rank_;
  const std::vector<std::vector<int>> groups_;  // members by group, in rank order
  const int my_group_;
  int size_ = 0;
  size_t largest_ = 0;
  std::unique_ptr<SubgroupClient> local_client_;
  std::unique_ptr<Communicator> local_;
  std::unique_ptr<SubgroupClient> leaders_client_;
  std::unique_ptr<Communicator> leaders_;  // on group leaders only, and only with 2+ groups
};

}  // namespace

std::vector<int> GroupsByHost(const std::vector<std::string>& identities) {
  std::vector<int> group_of(identities.size());
  std::map<std::string, int> seen;
  int groups = 0;
  for (size_t r = 0; r < identities.size(); ++r) {
    if (identities[r].empty()) {
      group_of[r] = groups++;
      continue;
    }
    auto [it, added] = seen.emplace(identities[r], groups);
    if (added) ++groups;
    group_of[r] = it->second;
  }
  return group_of;
}

absl::StatusOr<std::unique_ptr<Communicator>> CreateHierarchicalCommunicator(
    coordination::CoordinationClient& client, const std::vector<int>& group_of,
    const GlooOptions& gloo, const ShmOptions& shm) {
  const int rank = client.rank();
  if (group_of.size() != static_cast<size_t>(client.world_size())) {
    return absl::InvalidArgumentError(
        fmt::format("{} groups given for {} ranks", group_of.size(), client.world_size()));
  }
  // Groups in order of their lowest rank; members in rank order.
  std::vector<std::vector<int>> groups;
  std::map<int, size_t> index_of;
  for (int r = 0; r < client.world_size(); ++r) {
    auto [it, added] = index_of.emplace(group_of[static_cast<size_t>(r)], groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(r);
  }
  const int my_group = static_cast<int>(index_of[group_of[static_cast<size_t>(rank)]]);
  const std::string keys = fmt::format("hier/{}/", gloo.name);

  auto local_client = std::make_unique<SubgroupClient>(
      client, groups[static_cast<size_t>(my_group)], keys + fmt::format("group{}/", my_group));
  absl::StatusOr<std::unique_ptr<Communicator>> local = CreateShmCommunicator(*local_client, shm);
  // Every group's outcome before any leader waits for the others in Gloo.
  TP_RETURN_IF_ERROR(client.Set(keys + "local/" + std::to_string(rank),
                                local.ok() ? "ok" : local.status().ToString()));
  for (int r = 0; r < client.world_size(); ++r) {
    TP_ASSIGN_OR_RETURN(std::string outcome,
                        client.Get(keys + "local/" + std::to_string(r), gloo.timeout));
    if (outcome != "ok") {
      return absl::FailedPreconditionError(
          fmt::format("shared memory in {}'s group: {}", client.RankName(r), outcome));
    }
  }

  std::unique_ptr<SubgroupClient> leaders_client;
  std::unique_ptr<Communicator> leaders;
  const bool leader = groups[static_cast<size_t>(my_group)].front() == rank;
  if (leader && groups.size() > 1) {
    std::vector<int> firsts;
    for (const std::vector<int>& members : groups) firsts.push_back(members.front());
    leaders_client = std::make_unique<SubgroupClient>(client, firsts, keys + "leaders/");
    TP_ASSIGN_OR_RETURN(leaders, CreateGlooCommunicator(*leaders_client, gloo));
  }
  return std::make_unique<HierarchicalCommunicator>(rank, std::move(groups), my_group,
                                                    std::move(local_client), *std::move(local),
                                                    std::move(leaders_client), std::move(leaders));
}

}  // namespace trainpkg::collectives
