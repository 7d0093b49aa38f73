// The shared-memory communicator with N ranks as threads of one process (a
// real coordination server on 127.0.0.1, real clients, one real segment in
// /dev/shm), and its segment (internal/shm_group.h) on its own.
#include "trainer_runtime/collectives/shm_communicator.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmath>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/collectives/thread_job.h"
#include "trainer_runtime/collectives/internal/shm_group.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::collectives {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

using testing::OnEveryRank;

// A job of n ranks with a registered client and a shared-memory communicator each.
class Job : public testing::ThreadJob {
 public:
  explicit Job(int n, ShmOptions options = {})
      : ThreadJob(n, [options](coordination::CoordinationClient& client) {
          return CreateShmCommunicator(client, options);
        }) {}
};

// 16 KiB slots (4096 floats a round): buffers of a few rounds and every
// remainder come cheap.
constexpr ShmOptions kSmallSlots{.timeout = absl::Seconds(10), .name = "test", .slot_bytes = 16384};

// Values with rounding in their sums, different on every rank.
std::vector<float> RandomValues(int rank, size_t n) {
  std::mt19937 rng(static_cast<uint32_t>(rank * 7919 + n));
  std::uniform_real_distribution<float> dist(-1000.0f, 1000.0f);
  std::vector<float> values(n);
  for (float& v : values) v = dist(rng);
  return values;
}

TEST(ShmCommunicatorTest, AllReduceSumsInRankOrderOnEverySizeAndRankCount) {
  for (int ranks : {2, 3, 4}) {
    Job job(ranks, kSmallSlots);
    // 1 float, sizes around a round (4096 floats) and a slice's cache-line
    // rounding, several rounds with a remainder.
    for (size_t n : {1UL, 7UL, 17UL, 4095UL, 4096UL, 4097UL, 12289UL, 100003UL}) {
      std::vector<std::vector<float>> inputs;
      for (int r = 0; r < ranks; ++r) inputs.push_back(RandomValues(r, n));
      std::vector<float> want(n);
      for (size_t i = 0; i < n; ++i) {
        float sum = inputs[0][i];
        for (int r = 1; r < ranks; ++r) sum += inputs[r][i];
        want[i] = sum;
      }
      std::vector<std::vector<float>> outputs = inputs;
      OnEveryRank(ranks, [&](int r) {
        ASSERT_THAT(job.comm(r).AllReduce(std::span(outputs[r]), ReduceOp::kSum), IsOk());
      });
      for (int r = 0; r < ranks; ++r) {
        // Bit-identical: the same additions in the same order on every rank.
        ASSERT_EQ(std::memcmp(outputs[r].data(), want.data(), n * sizeof(float)), 0)
            << "ranks=" << ranks << " n=" << n << " rank=" << r;
      }
    }
  }
}

TEST(ShmCommunicatorTest, DoublesSumInRankOrderAndAverage) {
  for (int ranks : {2, 3, 4}) {
    Job job(ranks, kSmallSlots);
    // A round holds 2048 doubles; sizes around it and its 8-double lines.
    for (size_t n : {1UL, 9UL, 2047UL, 2048UL, 2049UL, 50001UL}) {
      std::vector<std::vector<double>> data(ranks, std::vector<double>(n));
      std::vector<double> want(n);
      for (size_t i = 0; i < n; ++i) {
        for (int r = 0; r < ranks; ++r) data[r][i] = 1.0 / (3.0 + r + static_cast<double>(i));
        double sum = data[0][i];
        for (int r = 1; r < ranks; ++r) sum += data[r][i];
        want[i] = sum / ranks;
      }
      OnEveryRank(ranks, [&](int r) {
        ASSERT_THAT(job.comm(r).AllReduce(std::span(data[r]), ReduceOp::kMean), IsOk());
      });
      for (int r = 0; r < ranks; ++r) {
        ASSERT_EQ(data[r], want) << "ranks=" << ranks << " n=" << n << " rank=" << r;
      }
    }
  }
}

TEST(ShmCommunicatorTest, SixtyFourMebibytesWithTheDefaultSlots) {
  Job job(2);
  constexpr size_t kN = (size_t{64} << 20) / sizeof(float);
  std::vector<std::vector<float>> data(2, std::vector<float>(kN));
  for (size_t i = 0; i < kN; ++i) {
    data[0][i] = static_cast<float>(i % 1000);
    data[1][i] = static_cast<float>(i % 777);
  }
  OnEveryRank(2, [&](int r) {
    ASSERT_THAT(job.comm(r).AllReduce(std::span(data[r]), ReduceOp::kMean), IsOk());
  });
  for (size_t i = 0; i < kN; ++i) {
    ASSERT_EQ(data[0][i], static_cast<float>(i % 1000 + i % 777) / 2.0f) << i;
    ASSERT_EQ(data[1][i], data[0][i]) << i;
  }
}

TEST(ShmCommunicatorTest, NanAndInfinityPassThrough) {
  Job job(3, kSmallSlots);
  const float inf = std::numeric_limits<float>::infinity();
  const float nan = std::numeric_limits<float>::quiet_NaN();
  std::vector<std::vector<float>> data = {
      {1, inf, nan, inf, 5}, {2, 1, 3, -inf, 5}, {3, 1, 3, 0, std::numeric_limits<float>::max()}};
  OnEveryRank(3, [&](int r) {
    ASSERT_THAT(job.comm(r).AllReduce(std::span(data[r]), ReduceOp::kSum), IsOk());
  });
  for (int r = 0; r < 3; ++r) {
    EXPECT_EQ(data[r][0], 6.0f);
    EXPECT_EQ(data[r][1], inf);
    EXPECT_TRUE(std::isnan(data[r][2]));
    EXPECT_TRUE(std::isnan(data[r][3]));                       // inf + -inf
    EXPECT_EQ(data[r][4], std::numeric_limits<float>::max());  // 10 is below max's ulp
  }
}

TEST(ShmCommunicatorTest, PreparedAllReduceRunsAThousandTimes) {
  for (int ranks : {2, 3}) {
    Job job(ranks, kSmallSlots);
    constexpr size_t kN = 50827;  // the digits MLP's gradient bucket and its weight
    std::vector<std::vector<float>> data(ranks, std::vector<float>(kN));
    std::vector<std::unique_ptr<PreparedAllReduce>> prepared(ranks);
    OnEveryRank(ranks, [&](int r) {
      auto p = job.comm(r).PrepareAllReduce(std::span(data[r]), ReduceOp::kMean);
      ASSERT_THAT(p, IsOk());
      prepared[r] = *std::move(p);
      for (int it = 0; it < 1000; ++it) {
        for (size_t i = 0; i < kN; i += 97) data[r][i] = static_cast<float>(r + it);
        ASSERT_THAT(prepared[r]->Run(), IsOk()) << it;
        const float want = static_cast<float>(ranks - 1) / 2.0f + static_cast<float>(it);
        for (size_t i = 0; i < kN; i += 97) ASSERT_EQ(data[r][i], want) << it << " " << i;
      }
    });
  }
}

TEST(ShmCommunicatorTest, BroadcastFromEveryRootAndAllGatherInRankOrder) {
  Job job(3, kSmallSlots);
  constexpr size_t kN = 10007;  // a few rounds and a remainder
  for (int root = 0; root < 3; ++root) {
    std::vector<std::vector<float>> data;
    for (int r = 0; r < 3; ++r) data.push_back(RandomValues(r, kN));
    const std::vector<float> want = data[root];
    OnEveryRank(
        3, [&](int r) { ASSERT_THAT(job.comm(r).Broadcast(std::span(data[r]), root), IsOk()); });
    for (int r = 0; r < 3; ++r) ASSERT_EQ(data[r], want) << "root " << root << " rank " << r;
  }
  std::vector<std::vector<float>> gathered(3, std::vector<float>(3 * kN));
  OnEveryRank(3, [&](int r) {
    const std::vector<float> mine = RandomValues(r, kN);
    ASSERT_THAT(job.comm(r).AllGather(std::span<const float>(mine), std::span(gathered[r])),
                IsOk());
  });
  for (int r = 0; r < 3; ++r) {
    for (int q = 0; q < 3; ++q) {
      const std::vector<float> part(gathered[r].begin() + q * kN,
                                    gathered[r].begin() + (q + 1) * kN);
      ASSERT_EQ(part, RandomValues(q, kN)) << "rank " << r << " part " << q;
    }
  }
  OnEveryRank(3, [&](int r) { ASSERT_THAT(job.comm(r).Barrier(), IsOk()); });
}

TEST(ShmCommunicatorTest, RejectsBadArguments) {
  Job job(2, kSmallSlots);
  std::vector<float> data = {1, 2, 3};
  std::vector<float> small(5);
  EXPECT_TRUE(absl::IsInvalidArgument(job.comm(0).Broadcast(std::span(data), 2)));
  EXPECT_TRUE(absl::IsInvalidArgument(
      job.comm(0).AllGather(std::span<const float>(data), std::span(small))));
  // Empty buffers need no peers.
  EXPECT_THAT(job.comm(0).AllReduce(std::span<float>(), ReduceOp::kSum), IsOk());
}

TEST(ShmCommunicatorTest, PeerThatLeavesFailsTheOthersAtOnceNamingIt) {
  Job job(3, kSmallSlots);
  const absl::Time start = absl::Now();
  std::thread leaver([&] {
    absl::SleepFor(absl::Milliseconds(300));  // the others are waiting by then
    job.comm_ptr(2).reset();                  // rank 2 lets go of the segment
  });
  OnEveryRank(2, [&](int r) {
    std::vector<float> data(1000, 1.0f);
    absl::Status status = job.comm(r).AllReduce(std::span(data), ReduceOp::kSum);
    EXPECT_TRUE(absl::IsAborted(status)) << status;
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr("allreduce"), HasSubstr("rank 2"), HasSubstr("left")));
    EXPECT_EQ(job.comm(r).Barrier(), status);  // broken from now on
  });
  leaver.join();
  EXPECT_LT(absl::Now() - start, absl::Seconds(2));
}

TEST(ShmCommunicatorTest, HungPeerTimesOutNamingIt) {
  Job job(3, {.timeout = absl::Seconds(1), .name = "hung", .slot_bytes = 16384});
  OnEveryRank(2, [&](int r) {  // rank 2 never calls
    std::vector<float> data(1000, 1.0f);
    absl::Status status = job.comm(r).AllReduce(std::span(data), ReduceOp::kSum);
    EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr("did not finish within 1s"), HasSubstr("waiting for rank 2")));
  });
}

// --- the segment on its own --------------------------------------------------

std::filesystem::path InDevShm(const std::string& name) {
  return std::filesystem::path("/dev/shm") / name.substr(1);
}

TEST(ShmGroupTest, NameExistsUntilUnlinkedAndOnlyTheSameLayoutOpensIt) {
  auto group = internal::ShmGroup::Create(0, 2, 4096);
  ASSERT_THAT(group, IsOk());
  const std::string name = (*group)->name();
  EXPECT_THAT(name, ::testing::StartsWith("/trainpkg-shm-"));
  struct stat st {};
  ASSERT_EQ(stat(InDevShm(name).c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);  // the same user only
  EXPECT_TRUE(absl::IsFailedPrecondition(internal::ShmGroup::Open(name, 1, 3, 4096).status()));
  auto peer = internal::ShmGroup::Open(name, 1, 2, 4096);
  ASSERT_THAT(peer, IsOk());
  EXPECT_TRUE((*group)->IsAttached(1));
  EXPECT_EQ((*group)->FirstDepartedPeer(), -1);
  (*group)->Unlink();
  EXPECT_FALSE(std::filesystem::exists(InDevShm(name)));
  EXPECT_TRUE(absl::IsNotFound(internal::ShmGroup::Open(name, 1, 2, 4096).status()));
  // The mappings outlive the name; a peer that goes is seen as gone.
  peer->reset();
  EXPECT_EQ((*group)->FirstDepartedPeer(), 1);
}

TEST(ShmGroupTest, AForgedSegmentWithTheRightNameShapeIsNotJoined) {
  const std::string name = "/trainpkg-shm-00000000000000000000000000000001";
  const int fd = shm_open(name.c_str(), O_RDWR | O_CREAT | O_EXCL, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(ftruncate(fd, 1 << 20), 0);
  close(fd);
  auto group = internal::ShmGroup::Open(name, 1, 2, 4096);
  EXPECT_FALSE(group.ok());
  shm_unlink(name.c_str());
}

TEST(ShmGroupTest, SweepRemovesOnlyOldSegments) {
  auto old_group = internal::ShmGroup::Create(0, 2, 4096);
  auto new_group = internal::ShmGroup::Create(0, 2, 4096);
  ASSERT_TRUE(old_group.ok() && new_group.ok());
  const timespec an_hour_ago[2] = {{time(nullptr) - 3600, 0}, {time(nullptr) - 3600, 0}};
  ASSERT_EQ(utimensat(AT_FDCWD, InDevShm((*old_group)->name()).c_str(), an_hour_ago, 0), 0);
  EXPECT_GE(internal::ShmGroup::SweepStaleSegments(absl::Minutes(30)), 1);
  EXPECT_FALSE(std::filesystem::exists(InDevShm((*old_group)->name())));
  EXPECT_TRUE(std::filesystem::exists(InDevShm((*new_group)->name())));
  (*new_group)->Unlink();
}

}  // namespace
}  // namespace trainpkg::collectives
