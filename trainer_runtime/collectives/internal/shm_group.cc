#include "trainer_runtime/collectives/internal/shm_group.h"

#include <dirent.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <climits>
#include <cstring>
#include <ctime>
#include <utility>

#include "fmt/format.h"

namespace trainpkg::collectives::internal {
namespace {

constexpr uint64_t kMagic = 0x314D48534745504BULL;  // "KPEGSHM1"
constexpr size_t kPage = 4096;
constexpr size_t kLine = 64;
// Peers of a small collective usually arrive within microseconds of each
// other; spinning that long catches them without a syscall. Past it the wait
// is long enough that a futex sleep and wake cost little in comparison.
constexpr absl::Duration kSpinFor = absl::Microseconds(100);
// A sleeper wakes at least this often to ask on_wait about dead peers and the
// job, which bounds how long a failure goes unnoticed.
constexpr absl::Duration kSleepSlice = absl::Milliseconds(5);

struct Header {
  uint64_t magic;
  char nonce[32];  // the name's hex digits
  uint32_t ranks;
  uint32_t reserved;
  uint64_t slot_bytes;
};
static_assert(sizeof(Header) <= kPage);

size_t RoundUp(size_t n, size_t to) { return (n + to - 1) / to * to; }

// Each barrier word gets a line of its own: waiters poll `generation` while
// arrivers write `arrived`, and a shared line would bounce between the cores.
// The control area: the header page, one line per rank, three barrier lines.
size_t ControlBytes(int ranks) {
  return kPage + RoundUp((static_cast<size_t>(ranks) + 3) * kLine, kPage);
}

absl::Status Errno(std::string_view what, std::string_view name) {
  return absl::UnavailableError(
      fmt::format("shared memory: {} {}: {}", what, name, std::strerror(errno)));
}

int UsableCpus() {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) != 0) return 1;
  return CPU_COUNT(&set);
}

void FutexWait(std::atomic<uint32_t>& word, uint32_t expected, absl::Duration timeout) {
  const timespec ts = absl::ToTimespec(timeout);
  // Not FUTEX_PRIVATE_FLAG: the word is shared between processes.
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAIT, expected, &ts, nullptr, 0);
}

void FutexWakeAll(std::atomic<uint32_t>& word) {
  syscall(SYS_futex, reinterpret_cast<uint32_t*>(&word), FUTEX_WAKE, INT_MAX, nullptr, nullptr, 0);
}

inline void CpuRelax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#elif defined(__aarch64__)
  asm volatile("yield");
#endif
}

}  // namespace

size_t ShmGroup::SegmentBytes(int ranks, size_t slot_bytes) {
  return ControlBytes(ranks) + (static_cast<size_t>(ranks) + 1) * slot_bytes;
}

ShmGroup::ShmGroup(std::string name, int fd, void* base, size_t bytes, int rank, int ranks,
                   size_t slot_bytes)
    : name_(std::move(name)),
      fd_(fd),
      base_(base),
      bytes_(bytes),
      rank_(rank),
      ranks_(ranks),
      slot_bytes_(slot_bytes),
      spin_(ranks <= UsableCpus()) {}

ShmGroup::~ShmGroup() {
  munmap(base_, bytes_);
  // Unmapping does not touch the name: only rank 0 unlinks it, once all ranks
  // have it mapped (the header explains why).
  close(fd_);  // drops the liveness lock
}

absl::StatusOr<std::unique_ptr<ShmGroup>> ShmGroup::Create(int rank, int ranks, size_t slot_bytes) {
  if (ranks < 1 || rank < 0 || rank >= ranks || slot_bytes == 0 || slot_bytes % kPage != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "shared memory: rank {} of {} ranks with {}-byte slots (need 0 <= rank < ranks and slots "
        "a multiple of {} bytes)",
        rank, ranks, slot_bytes, kPage));
  }
  unsigned char random[16];
  if (getrandom(random, sizeof(random), 0) != static_cast<ssize_t>(sizeof(random))) {
    return Errno("getrandom for", "a segment name");
  }
  std::string hex;
  for (unsigned char c : random) hex += fmt::format("{:02x}", c);
  std::string name = std::string(kShmNamePrefix) + hex;
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return Errno("cannot create", name);
  const size_t bytes = SegmentBytes(ranks, slot_bytes);
  // Reserves the pages now: a full /dev/shm is an error here, not a SIGBUS
  // at the first write.
  if (const int error = posix_fallocate(fd, 0, static_cast<off_t>(bytes)); error != 0) {
    errno = error;
    absl::Status status = Errno(fmt::format("cannot reserve {} bytes for", bytes), name);
    close(fd);
    shm_unlink(name.c_str());
    return status;
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    absl::Status status = Errno("cannot map", name);
    close(fd);
    shm_unlink(name.c_str());
    return status;
  }
  auto* header = static_cast<Header*>(base);
  std::memcpy(header->nonce, hex.data(), sizeof(header->nonce));
  header->ranks = static_cast<uint32_t>(ranks);
  header->slot_bytes = slot_bytes;
  header->magic = kMagic;
  std::unique_ptr<ShmGroup> group(
      new ShmGroup(std::move(name), fd, base, bytes, rank, ranks, slot_bytes));
  // No other rank knows the name yet, so a failed creator removes it.
  if (absl::Status locked = group->LockOwnByte(); !locked.ok()) {
    group->Unlink();
    return locked;
  }
  return group;
}

absl::StatusOr<std::unique_ptr<ShmGroup>> ShmGroup::Open(std::string_view name, int rank, int ranks,
                                                         size_t slot_bytes) {
  const std::string path(name);
  // The name comes from the coordination store; only a name Create could have
  // made is opened, never some other object in /dev/shm.
  if (!name.starts_with(kShmNamePrefix) || name.size() != kShmNamePrefix.size() + 32) {
    return absl::InvalidArgumentError(
        fmt::format("shared memory: '{}' is not a trainpkg segment name", name));
  }
  const int fd = shm_open(path.c_str(), O_RDWR | O_CLOEXEC, 0);
  if (fd < 0) {
    if (errno == ENOENT) {
      return absl::NotFoundError(fmt::format(
          "shared memory: {} is not in this /dev/shm (another host or container)", path));
    }
    return Errno("cannot open", path);
  }
  const size_t bytes = SegmentBytes(ranks, slot_bytes);
  struct stat st {};
  // Checked before mapping: touching a mapping past the end of a shorter file
  // raises SIGBUS instead of returning an error.
  if (fstat(fd, &st) != 0 || static_cast<size_t>(st.st_size) != bytes) {
    close(fd);
    return absl::FailedPreconditionError(fmt::format("shared memory: {} has {} bytes, {} expected",
                                                     path, static_cast<long long>(st.st_size),
                                                     bytes));
  }
  void* base = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
  if (base == MAP_FAILED) {
    absl::Status status = Errno("cannot map", path);
    close(fd);
    return status;
  }
  const auto* header = static_cast<const Header*>(base);
  // The nonce ties the contents to the name: a segment of the right size made
  // by something else under a trainpkg name is refused.
  if (header->magic != kMagic || header->ranks != static_cast<uint32_t>(ranks) ||
      header->slot_bytes != slot_bytes ||
      std::memcmp(header->nonce, path.data() + kShmNamePrefix.size(), sizeof(header->nonce)) != 0) {
    munmap(base, bytes);
    close(fd);
    return absl::FailedPreconditionError(
        fmt::format("shared memory: {} is not the segment this job created", path));
  }
  // The name is rank 0's to unlink, so a rank that fails here leaves it; rank 0
  // learns of the failure through the published outcomes and unlinks it.
  std::unique_ptr<ShmGroup> group(new ShmGroup(path, fd, base, bytes, rank, ranks, slot_bytes));
  if (absl::Status locked = group->LockOwnByte(); !locked.ok()) return locked;
  return group;
}

int ShmGroup::SweepStaleSegments(absl::Duration age) {
  DIR* dir = opendir("/dev/shm");
  if (dir == nullptr) return 0;
  // readdir gives names without shm_open's leading '/'.
  const std::string_view prefix = kShmNamePrefix.substr(1);
  // A live job keeps its segment's name only while its ranks map it, so a
  // named segment older than the set-up can take was left by ranks that died
  // during set-up. Unlinking it frees the memory once no process maps it.
  const time_t cutoff = absl::ToTimeT(absl::Now() - age);
  int removed = 0;
  while (dirent* entry = readdir(dir)) {
    const std::string_view name = entry->d_name;
    if (!name.starts_with(prefix)) continue;
    struct stat st {};
    if (fstatat(dirfd(dir), entry->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
    if (!S_ISREG(st.st_mode) || st.st_mtime >= cutoff) continue;
    if (shm_unlink(("/" + std::string(name)).c_str()) == 0) ++removed;
  }
  closedir(dir);
  return removed;
}

void ShmGroup::Unlink() {
  if (unlinked_) return;
  unlinked_ = true;
  shm_unlink(name_.c_str());
}

float* ShmGroup::slot(int r) const {
  return reinterpret_cast<float*>(static_cast<char*>(base_) + ControlBytes(ranks_) +
                                  static_cast<size_t>(r) * slot_bytes_);
}

float* ShmGroup::result() const { return slot(ranks_); }

std::atomic<uint32_t>& ShmGroup::attached(int r) const {
  return *reinterpret_cast<std::atomic<uint32_t>*>(static_cast<char*>(base_) + kPage +
                                                   static_cast<size_t>(r) * kLine);
}

std::atomic<uint32_t>& ShmGroup::arrivals(int r) const {
  return *reinterpret_cast<std::atomic<uint32_t>*>(static_cast<char*>(base_) + kPage +
                                                   static_cast<size_t>(r) * kLine + 4);
}

std::vector<int> ShmGroup::LaggingRanks() const {
  const uint32_t mine = arrivals(rank_).load(std::memory_order_acquire);
  std::vector<int> lagging;
  for (int r = 0; r < ranks_; ++r) {
    // Signed difference: the counters may wrap after 2^32 barriers.
    if (static_cast<int32_t>(arrivals(r).load(std::memory_order_acquire) - mine) < 0) {
      lagging.push_back(r);
    }
  }
  return lagging;
}

std::atomic<uint32_t>& ShmGroup::arrived() const { return attached(ranks_); }
std::atomic<uint32_t>& ShmGroup::generation() const { return attached(ranks_ + 1); }
std::atomic<uint32_t>& ShmGroup::sleepers() const { return attached(ranks_ + 2); }

absl::Status ShmGroup::LockOwnByte() {
  struct flock lock {};
  lock.l_type = F_WRLCK;
  lock.l_whence = SEEK_SET;
  lock.l_start = rank_;
  lock.l_len = 1;
  // An open-file-description lock, not a classic POSIX one: classic locks
  // belong to the process, so ranks that are threads of one process would share
  // them, and closing any descriptor of the file would drop them all.
  if (fcntl(fd_, F_OFD_SETLK, &lock) != 0) {
    return Errno(fmt::format("rank {} cannot take its lock on", rank_), name_);
  }
  // Set only once the lock is held, so a peer that sees the flag and then finds
  // the byte unlocked knows this rank has gone, not that it is still starting.
  attached(rank_).store(1, std::memory_order_release);
  return absl::OkStatus();
}

bool ShmGroup::IsAttached(int r) const {
  if (attached(r).load(std::memory_order_acquire) == 0) return false;
  // F_OFD_GETLK reports no conflict with locks of the asking description, so
  // this rank's own byte would look unlocked.
  if (r == rank_) return true;
  struct flock probe {};
  probe.l_type = F_WRLCK;
  probe.l_whence = SEEK_SET;
  probe.l_start = r;
  probe.l_len = 1;
  if (fcntl(fd_, F_OFD_GETLK, &probe) != 0) return true;  // cannot tell: assume alive
  return probe.l_type != F_UNLCK;
}

int ShmGroup::FirstDepartedPeer() const {
  for (int r = 0; r < ranks_; ++r) {
    if (r != rank_ && attached(r).load(std::memory_order_acquire) != 0 && !IsAttached(r)) return r;
  }
  return -1;
}

absl::Status ShmGroup::Arrive(absl::Time deadline, const std::function<absl::Status()>& on_wait) {
  // Only for LaggingRanks' report; the barrier itself is arrived and generation.
  arrivals(rank_).fetch_add(1, std::memory_order_release);
  // Read before arriving: once this rank is counted, the last rank may bump the
  // generation at any moment, and a rank that read the bumped value would wait
  // for a generation that never comes.
  const uint32_t gen = generation().load(std::memory_order_seq_cst);
  if (arrived().fetch_add(1, std::memory_order_acq_rel) + 1 == static_cast<uint32_t>(ranks_)) {
    // The count is reset before the generation moves: a released rank may enter
    // the next barrier at once and count itself in.
    arrived().store(0, std::memory_order_relaxed);
    generation().fetch_add(1, std::memory_order_seq_cst);
    // No syscall when every waiter is still spinning.
    if (sleepers().load(std::memory_order_seq_cst) != 0) FutexWakeAll(generation());
    return absl::OkStatus();
  }
  if (spin_) {
    const absl::Time spin_until = absl::Now() + kSpinFor;
    while (true) {
      for (int i = 0; i < 64; ++i) {
        if (generation().load(std::memory_order_acquire) != gen) return absl::OkStatus();
        CpuRelax();
      }
      if (absl::Now() > spin_until) break;
    }
  }
  while (true) {
    // Announce the sleep, then check again: a bump that lands between the check
    // and FUTEX_WAIT makes the kernel return at once (the word no longer equals
    // gen), and one that lands before the check is seen by it, so no wake is lost.
    sleepers().fetch_add(1, std::memory_order_seq_cst);
    if (generation().load(std::memory_order_seq_cst) == gen) {
      FutexWait(generation(), gen, kSleepSlice);
    }
    sleepers().fetch_sub(1, std::memory_order_seq_cst);
    if (generation().load(std::memory_order_acquire) != gen) return absl::OkStatus();
    if (absl::Now() > deadline) {
      return absl::DeadlineExceededError("the ranks did not all arrive in time");
    }
    if (absl::Status status = on_wait(); !status.ok()) return status;
  }
}

}  // namespace trainpkg::collectives::internal
