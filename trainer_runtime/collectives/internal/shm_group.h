// The shared-memory segment of the ranks of one job on one host, and the
// synchronisation the shared-memory communicator builds on.
//
//   // rank 0 of the group:
//   auto group = ShmGroup::Create(/*rank=*/0, /*ranks=*/3, /*slot_bytes=*/1 << 20);
//   publish((*group)->name());                       // through the job's KV store
//   // every other rank, with the published name:
//   auto group = ShmGroup::Open(name, rank, 3, 1 << 20);
//   // every rank, once all have opened it:
//   (*group)->Unlink();                              // rank 0; idempotent
//   TP_RETURN_IF_ERROR((*group)->Arrive(deadline, on_wait));   // a barrier
//
// Layout: a header page (magic, the random name's nonce, rank count, slot
// size), one cache line per rank (attached flag, barriers arrived at), the
// barrier's lines (count, generation, sleepers),
// then `ranks` slots of slot_bytes and a result slot of slot_bytes.
//
// Names: "/trainpkg-shm-<32 hex digits>" from the kernel's random source,
// created O_EXCL with mode 0600, so a segment is only ever joined by ranks
// that learnt its name from this job (a stale segment of an earlier job has
// another name), and only by the same user. Rank 0 unlinks the name as soon
// as every rank has it mapped: from then on nothing is left in /dev/shm
// whatever happens to the ranks (the kernel frees the memory with the last
// mapping, also after SIGKILL). A segment whose ranks all died before that
// point is swept by the next Create on the host (SweepStaleSegments).
//
// Liveness: each rank holds an open-file-description write lock on its own
// byte of the segment while it is attached. The kernel drops the lock when
// the rank's process exits, however it exits, so a waiting rank can tell a
// peer that is slow from one that is gone (IsAttached/FirstDepartedPeer),
// across PID namespaces and between threads of one process alike.
//
// Barrier: a counter and a generation word; the last rank to arrive bumps
// the generation. Waiters spin briefly (not when the group has more ranks
// than this process may use CPUs: they would spin away the time slice of the
// rank they wait for), then sleep on a futex of the generation word in 5 ms
// slices, between which `on_wait` is asked whether to go on (it checks the
// peers and the job).
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SHM_GROUP_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SHM_GROUP_H_

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"

namespace trainpkg::collectives::internal {

inline constexpr std::string_view kShmNamePrefix = "/trainpkg-shm-";

class ShmGroup {
 public:
  // Creates and maps a new segment for `ranks` ranks and attaches `rank`.
  // Unavailable (naming the call and errno) when /dev/shm cannot hold it.
  static absl::StatusOr<std::unique_ptr<ShmGroup>> Create(int rank, int ranks, size_t slot_bytes);
  // Maps the segment `name` made by Create with the same ranks and
  // slot_bytes, and attaches `rank`. NotFound when the name does not exist
  // here (another /dev/shm), FailedPrecondition when its header does not
  // match.
  static absl::StatusOr<std::unique_ptr<ShmGroup>> Open(std::string_view name, int rank, int ranks,
                                                        size_t slot_bytes);
  // Unlinks segments named kShmNamePrefix* last modified (created: a live
  // job unlinks its name as soon as every rank has mapped it) before now - age.
  // Returns how many were removed.
  static int SweepStaleSegments(absl::Duration age);

  ShmGroup(const ShmGroup&) = delete;
  ShmGroup& operator=(const ShmGroup&) = delete;
  // Detaches (drops the lock, unmaps).
  ~ShmGroup();

  const std::string& name() const { return name_; }
  int rank() const { return rank_; }
  int ranks() const { return ranks_; }
  size_t slot_floats() const { return slot_bytes_ / sizeof(float); }
  // Rank r's slot and the result slot.
  float* slot(int r) const;
  float* result() const;

  // Removes the name from /dev/shm (the mappings stay). Idempotent.
  void Unlink();

  // Whether rank r holds its liveness lock (attached and not gone).
  bool IsAttached(int r) const;
  // The first rank that attached and has since let go of its lock (exited,
  // was killed, or destroyed its communicator), or -1.
  int FirstDepartedPeer() const;

  // The ranks that have arrived at fewer barriers than this one (the ones
  // this rank waits for), in rank order.
  std::vector<int> LaggingRanks() const;

  // Waits until every rank has arrived. `on_wait` is called between sleeps;
  // a non-OK status from it ends the wait with that status. Also
  // DeadlineExceeded past `deadline`.
  absl::Status Arrive(absl::Time deadline, const std::function<absl::Status()>& on_wait);

 private:
  struct Layout;
  ShmGroup(std::string name, int fd, void* base, size_t bytes, int rank, int ranks,
           size_t slot_bytes);
  static size_t SegmentBytes(int ranks, size_t slot_bytes);
  absl::Status LockOwnByte();
  std::atomic<uint32_t>& attached(int r) const;
  std::atomic<uint32_t>& arrivals(int r) const;
  std::atomic<uint32_t>& arrived() const;
  std::atomic<uint32_t>& generation() const;
  std::atomic<uint32_t>& sleepers() const;

  const std::string name_;
  const int fd_;
  void* const base_;
  const size_t bytes_;
  const int rank_;
  const int ranks_;
  const size_t slot_bytes_;
  const bool spin_;
  bool unlinked_ = false;
};

}  // namespace trainpkg::collectives::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SHM_GROUP_H_
