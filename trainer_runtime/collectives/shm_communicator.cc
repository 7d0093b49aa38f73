#include "trainer_runtime/collectives/shm_communicator.h"

#include <sys/stat.h>

#include <algorithm>
#include <cstring>
#include <fstream>
#include <span>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_join.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "trainer_runtime/collectives/internal/shm_group.h"
#include "trainer_runtime/collectives/internal/shm_reduce.h"

namespace trainpkg::collectives {
namespace {

using internal::ShmGroup;

// Slices of a round of `length` elements of `element_bytes`, one per rank,
// each starting on a cache line (64 bytes) so no two ranks write one line.
struct Slice {
  size_t begin = 0;
  size_t end = 0;
};

Slice SliceOf(size_t length, int ranks, int r, size_t element_bytes) {
  const size_t line = 64 / element_bytes;
  const size_t per = (length + static_cast<size_t>(ranks) - 1) / static_cast<size_t>(ranks);
  const size_t chunk = (per + line - 1) / line * line;
  const size_t begin = std::min(length, chunk * static_cast<size_t>(r));
  return {begin, std::min(length, begin + chunk)};
}

class ShmCommunicator final : public Communicator {
 public:
  ShmCommunicator(coordination::CoordinationClient& client, std::unique_ptr<ShmGroup> group,
                  absl::Duration timeout)
      : client_(client), group_(std::move(group)), timeout_(timeout) {}

  int rank() const override { return group_->rank(); }
  int size() const override { return group_->ranks(); }

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
    TP_RETURN_IF_ERROR(Usable("broadcast"));
    const absl::Time deadline = absl::Now() + timeout_;
    const size_t round = group_->slot_floats();
    for (size_t offset = 0; offset < data.size(); offset += round) {
      const size_t bytes = std::min(round, data.size() - offset) * sizeof(float);
      if (rank() == root) std::memcpy(group_->slot(root), data.data() + offset, bytes);
      TP_RETURN_IF_ERROR(Wait("broadcast", deadline));
      if (rank() != root) std::memcpy(data.data() + offset, group_->slot(root), bytes);
      // The root's slot is read until every rank is past this point.
      TP_RETURN_IF_ERROR(Wait("broadcast", deadline));
    }
    return absl::OkStatus();
  }

  absl::Status AllGather(std::span<const float> input, std::span<float> output) override {
    if (output.size() != input.size() * static_cast<size_t>(size())) {
      return absl::InvalidArgumentError(fmt::format(
          "allgather of {} floats from {} ranks needs {} output floats, got {}", input.size(),
          size(), input.size() * static_cast<size_t>(size()), output.size()));
    }
    TP_RETURN_IF_ERROR(Usable("allgather"));
    const absl::Time deadline = absl::Now() + timeout_;
    const size_t round = group_->slot_floats();
    // Each rank writes only its own slot, so one barrier publishes every input.
    for (size_t offset = 0; offset < input.size(); offset += round) {
      const size_t length = std::min(round, input.size() - offset);
      std::memcpy(group_->slot(rank()), input.data() + offset, length * sizeof(float));
      TP_RETURN_IF_ERROR(Wait("allgather", deadline));
      for (int q = 0; q < size(); ++q) {
        std::memcpy(output.data() + static_cast<size_t>(q) * input.size() + offset, group_->slot(q),
                    length * sizeof(float));
      }
      TP_RETURN_IF_ERROR(Wait("allgather", deadline));
    }
    return absl::OkStatus();
  }

  absl::Status Barrier() override {
    TP_RETURN_IF_ERROR(Usable("barrier"));
    return Wait("barrier", absl::Now() + timeout_);
  }

 private:
  // Rank r's slot (r == size(): the result slot) as T.
  template <typename T>
  T* Slot(int r) const {
    return reinterpret_cast<T*>(r == size() ? group_->result() : group_->slot(r));
  }

  template <typename T>
  absl::Status AllReduceOf(std::span<T> data, ReduceOp op) {
    TP_RETURN_IF_ERROR(Usable("allreduce"));
    const absl::Time deadline = absl::Now() + timeout_;
    const int r = rank();
    const int p = size();
    // Two barriers a round suffice: a rank writes its own slot only before the
    // first and its slice of the result slot only after it, and no rank passes
    // the next round's first barrier before every rank has copied this round's
    // result out.
    const size_t round = group_->slot_floats() * sizeof(float) / sizeof(T);
    for (size_t offset = 0; offset < data.size(); offset += round) {
      const size_t length = std::min(round, data.size() - offset);
      T* mine = data.data() + offset;
      // Its own slice is left out: rank r reads that from its buffer when reducing.
      for (int s = 0; s < p; ++s) {
        if (s == r) continue;
        const Slice slice = SliceOf(length, p, s, sizeof(T));
        std::memcpy(Slot<T>(r) + slice.begin, mine + slice.begin,
                    (slice.end - slice.begin) * sizeof(T));
      }
      TP_RETURN_IF_ERROR(Wait("allreduce", deadline));
      const Slice own = SliceOf(length, p, r, sizeof(T));
      if (own.end > own.begin) {
        std::vector<const T*> sources(static_cast<size_t>(p));
        for (int q = 0; q < p; ++q) {
          sources[static_cast<size_t>(q)] =
              (q == r ? mine : Slot<T>(q)) + static_cast<ptrdiff_t>(own.begin);
        }
        T* result = Slot<T>(p) + own.begin;
        // Rank order, whoever reduces: every rank gets the same bits, and the sum
        // does not change with how the slices fall to ranks.
        internal::SumInRankOrder(sources, own.end - own.begin, result);
        std::memcpy(mine + own.begin, result, (own.end - own.begin) * sizeof(T));
      }
      TP_RETURN_IF_ERROR(Wait("allreduce", deadline));
      for (int s = 0; s < p; ++s) {
        if (s == r) continue;
        const Slice slice = SliceOf(length, p, s, sizeof(T));
        std::memcpy(mine + slice.begin, Slot<T>(p) + slice.begin,
                    (slice.end - slice.begin) * sizeof(T));
      }
    }
    // Divided after all rounds, once per element, as the contract's "rounded
    // once" asks; dividing the inputs first would round twice.
    if (op == ReduceOp::kMean) {
      const T n = static_cast<T>(p);
      for (T& x : data) x /= n;
    }
    return absl::OkStatus();
  }

  // The broken state, or the job's failure found before an operation.
  absl::Status Usable(std::string_view what) {
    if (!broken_.ok()) return broken_;
    // Checked before the operation too: a job that already failed then gives
    // Aborted at once instead of a wait that ends in a timeout.
    if (absl::Status job = client_.JobStatus(); !job.ok()) {
      broken_ = absl::AbortedError(fmt::format("{}: {}", what, std::string(job.message())));
    }
    return broken_;
  }

  // One barrier of operation `what`; any failure breaks the communicator.
  absl::Status Wait(std::string_view what, absl::Time deadline) {
    absl::Status status = group_->Arrive(deadline, [&]() -> absl::Status {
      if (const int gone = group_->FirstDepartedPeer(); gone >= 0) {
        return absl::AbortedError(fmt::format(
            "{}: {} left the shared-memory group while rank {} waited for it (it exited, was "
            "killed or closed its communicator)",
            what, client_.RankName(gone), rank()));
      }
      if (absl::Status job = client_.JobStatus(); !job.ok()) {
        return absl::AbortedError(fmt::format("{}: {}", what, std::string(job.message())));
      }
      return absl::OkStatus();
    });
    if (absl::IsDeadlineExceeded(status)) {
      std::vector<std::string> names;
      for (int lagging : group_->LaggingRanks()) names.push_back(client_.RankName(lagging));
      status = absl::DeadlineExceededError(
          fmt::format("{} on rank {} did not finish within {}: still waiting for {}", what, rank(),
                      absl::FormatDuration(timeout_),
                      names.empty() ? "the other ranks" : absl::StrJoin(names, ", ")));
    }
    if (!status.ok()) broken_ = status;
    return status;
  }

  coordination::CoordinationClient& client_;
  const std::unique_ptr<ShmGroup> group_;
  const absl::Duration timeout_;
  absl::Status broken_;
};

// Every rank's value of "<prefix><r>", in rank order.
absl::StatusOr<std::vector<std::string>> GetFromEveryRank(coordination::CoordinationClient& client,
                                                          const std::string& prefix,
                                                          absl::Duration timeout) {
  std::vector<std::string> values;
  for (int r = 0; r < client.world_size(); ++r) {
    TP_ASSIGN_OR_RETURN(std::string value, client.Get(prefix + std::to_string(r), timeout));
    values.push_back(std::move(value));
  }
  return values;
}

}  // namespace

absl::StatusOr<std::string> ShmHostIdentity() {
  std::string boot_id;
  std::ifstream in("/proc/sys/kernel/random/boot_id");
  std::getline(in, boot_id);
  struct stat st {};
  if (stat("/dev/shm", &st) != 0 || boot_id.empty()) {
    return absl::UnavailableError("cannot read the boot id or /dev/shm: no shared memory here");
  }
  return fmt::format("{} {}:{}", boot_id, static_cast<unsigned long long>(st.st_dev),
                     static_cast<unsigned long long>(st.st_ino));
}

absl::StatusOr<std::unique_ptr<Communicator>> CreateShmCommunicator(
    coordination::CoordinationClient& client, const ShmOptions& options) {
  const int rank = client.rank();
  const int ranks = client.world_size();
  const std::string keys = fmt::format("shm/{}/", options.name);

  // 1. One host? (An unreadable identity publishes "", which matches none.)
  absl::StatusOr<std::string> identity = ShmHostIdentity();
  TP_RETURN_IF_ERROR(client.Set(keys + "host/" + std::to_string(rank), identity.value_or("")));
  // Every rank publishes before it reads and all compare the same list, so all
  // reach the same answer.
  TP_ASSIGN_OR_RETURN(std::vector<std::string> hosts,
                      GetFromEveryRank(client, keys + "host/", options.timeout));
  for (int r = 0; r < ranks; ++r) {
    if (hosts[static_cast<size_t>(r)].empty() || hosts[static_cast<size_t>(r)] != hosts[0]) {
      return absl::FailedPreconditionError(
          fmt::format("shared memory: {} does not share /dev/shm with {}", client.RankName(r),
                      client.RankName(0)));
    }
  }

  // 2. Rank 0 makes the segment and says where; the others map it.
  absl::StatusOr<std::unique_ptr<ShmGroup>> group;
  if (rank == 0) {
    // Older than any live set-up's segment can be (shm_group.cc).
    ShmGroup::SweepStaleSegments(options.timeout + absl::Minutes(1));
    group = ShmGroup::Create(rank, ranks, options.slot_bytes);
    // A failed create is published too, so the others fail now with rank 0's
    // reason instead of waiting out the timeout for a name that never comes.
    TP_RETURN_IF_ERROR(client.Set(
        keys + "segment", group.ok() ? (*group)->name() : "error:" + group.status().ToString()));
  } else {
    TP_ASSIGN_OR_RETURN(std::string segment, client.Get(keys + "segment", options.timeout));
    if (segment.starts_with("error:")) {
      group = absl::UnavailableError(segment.substr(6));
    } else {
      group = ShmGroup::Open(segment, rank, ranks, options.slot_bytes);
    }
  }

  // 3. Everyone agrees, from the same published outcomes, whether it worked.
  TP_RETURN_IF_ERROR(client.Set(keys + "mapped/" + std::to_string(rank),
                                group.ok() ? "ok" : group.status().ToString()));
  absl::StatusOr<std::vector<std::string>> mapped =
      GetFromEveryRank(client, keys + "mapped/", options.timeout);
  if (rank == 0 && group.ok()) (*group)->Unlink();  // mapped everywhere, or abandoned
  if (!mapped.ok()) return mapped.status();
  for (int r = 0; r < ranks; ++r) {
    if ((*mapped)[static_cast<size_t>(r)] != "ok") {
      return absl::FailedPreconditionError(
          fmt::format("shared memory: {} could not map the job's segment: {}", client.RankName(r),
                      (*mapped)[static_cast<size_t>(r)]));
    }
  }
  return std::make_unique<ShmCommunicator>(client, *std::move(group), options.timeout);
}

}  // namespace trainpkg::collectives
