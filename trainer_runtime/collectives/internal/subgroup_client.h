// A CoordinationClient for a subset of a job's ranks, over the job's own
// client: ranks are renumbered 0..members-1 in the order given, keys live
// under a prefix of the subgroup's own, and the job's health is the job's.
// Lets a transport written for a whole job (Gloo, shared memory) run among
// some of its ranks (hierarchical_communicator.h).
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SUBGROUP_CLIENT_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SUBGROUP_CLIENT_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "trainer_runtime/coordination/coordination_client.h"

namespace trainpkg::collectives::internal {

class SubgroupClient final : public coordination::CoordinationClient {
 public:
  // REQUIRES: `members` are distinct ranks of `job` and hold job.rank();
  // `job` outlives this; every member uses the same members and prefix.
  SubgroupClient(coordination::CoordinationClient& job, std::vector<int> members,
                 std::string key_prefix);

  int rank() const override { return rank_; }
  int world_size() const override { return static_cast<int>(members_.size()); }
  const std::string& RankName(int rank) const override;
  // The job's client is registered already: nothing to do.
  absl::Status Register() override { return absl::OkStatus(); }
  absl::Status Set(std::string_view key, std::string_view value) override;
  absl::StatusOr<std::string> Get(std::string_view key, absl::Duration timeout) override;
  absl::StatusOr<int64_t> Add(std::string_view key, int64_t delta) override;
  // Counts arrivals in the store and polls until every member is in.
  absl::Status Barrier(std::string_view name, absl::Duration timeout) override;
  absl::Duration FailureDetectionBound() const override { return job_.FailureDetectionBound(); }
  absl::Status JobStatus() const override { return job_.JobStatus(); }
  absl::Status WaitForJobFailure(absl::Duration timeout) const override {
    return job_.WaitForJobFailure(timeout);
  }
  // The job's client says goodbye for the process: nothing to do.
  absl::Status Goodbye() override { return absl::OkStatus(); }

 private:
  coordination::CoordinationClient& job_;
  const std::vector<int> members_;
  const std::string prefix_;
  int rank_ = 0;
  std::map<std::string, int64_t> barrier_rounds_;
};

}  // namespace trainpkg::collectives::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SUBGROUP_CLIENT_H_
