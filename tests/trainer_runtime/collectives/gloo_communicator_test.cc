// N ranks as threads of one process: a real coordination server on 127.0.0.1,
// real clients, and Gloo over loopback TCP.
#include "trainer_runtime/collectives/gloo_communicator.h"

#include <csignal>
#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/collectives/thread_job.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::collectives {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

using testing::OnEveryRank;

// A job of n ranks with a registered client and a Gloo communicator each
// (heartbeats time out after 1 s: the hung-peer tests wait for them).
class Job : public testing::ThreadJob {
 public:
  explicit Job(int n, absl::Duration gloo_timeout = absl::Seconds(10))
      : ThreadJob(
            n,
            [gloo_timeout](coordination::CoordinationClient& client) {
              return CreateGlooCommunicator(client, {.timeout = gloo_timeout});
            },
            testing::FastOptions(/*heartbeat_timeout=*/absl::Seconds(1))) {}
};

// Integers small enough that every sum is exact in float.
float Value(int rank, size_t i) {
  return static_cast<float>((i * 7 + static_cast<size_t>(rank) * 13) % 1021);
}

TEST(GlooCommunicatorTest, AllReduceSumIsExactOnManySizes) {
  Job job(3);
  // 1 float, odd sizes not divisible by the rank count or Gloo's segments,
  // and sizes either side of the BCube/ring switch.
  for (size_t n : {1UL, 7UL, 1000UL, 65535UL, 65537UL, 300001UL}) {
    OnEveryRank(3, [&](int r) {
      std::vector<float> data(n);
      for (size_t i = 0; i < n; ++i) data[i] = Value(r, i);
      ASSERT_THAT(job.comm(r).AllReduce(std::span(data), ReduceOp::kSum), IsOk());
      for (size_t i = 0; i < n; ++i) {
        ASSERT_EQ(data[i], Value(0, i) + Value(1, i) + Value(2, i)) << "n=" << n << " i=" << i;
      }
    });
  }
}

TEST(GlooCommunicatorTest, DoublesKeepWhatAFloatWouldRound) {
  Job job(3);
  for (size_t n : {1UL, 65537UL}) {  // BCube and ring
    OnEveryRank(3, [&](int r) {
      // 2^30 + r + 0.25: a float has 24 bits and would lose the fraction.
      std::vector<double> data(n, 1073741824.0 + r + 0.25);
      ASSERT_THAT(job.comm(r).AllReduce(std::span(data), ReduceOp::kSum), IsOk());
      for (double x : data) ASSERT_EQ(x, 3 * 1073741824.0 + 3 + 0.75);
      ASSERT_THAT(job.comm(r).AllReduce(std::span(data), ReduceOp::kMean), IsOk());
      ASSERT_EQ(data[0], (3 * 1073741824.0 + 3 + 0.75));  // the mean of three equal values
    });
  }
}

TEST(GlooCommunicatorTest, AllReduceMeanDividesTheExactSumOnce) {
  Job job(3);
  constexpr size_t kN = 100003;
  OnEveryRank(3, [&](int r) {
    std::vector<float> data(kN);
    for (size_t i = 0; i < kN; ++i) data[i] = Value(r, i);
    ASSERT_THAT(job.comm(r).AllReduce(std::span(data), ReduceOp::kMean), IsOk());
    for (size_t i = 0; i < kN; ++i) {
      ASSERT_EQ(data[i], (Value(0, i) + Value(1, i) + Value(2, i)) / 3.0f) << i;
    }
  });
}

TEST(GlooCommunicatorTest, PreparedAllReduceSumsTheSameBufferRunAfterRun) {
  // 3 ranks (not a power of two: halving-doubling's binary blocks), sizes
  // for each algorithm: the one-step exchange (2 x the buffer < 256 KiB),
  // halving-doubling (the buffer < 256 KiB) and the ring of AllReduce;
  // several buffers prepared in the same order on every rank, run three
  // times (both receive-buffer parities of the exchange) interleaved with
  // other collectives.
  Job job(3);
  const std::vector<size_t> sizes = {1, 7, 1000, 65535, 65537, 70001};
  OnEveryRank(3, [&](int r) {
    std::vector<std::vector<float>> buffers;
    for (size_t n : sizes) buffers.emplace_back(n);
    std::vector<std::unique_ptr<PreparedAllReduce>> prepared;
    for (auto& buffer : buffers) {
      auto p = job.comm(r).PrepareAllReduce(std::span(buffer), ReduceOp::kSum);
      ASSERT_THAT(p, IsOk());
      prepared.push_back(*std::move(p));
    }
    for (int run = 0; run < 3; ++run) {
      for (size_t b = 0; b < buffers.size(); ++b) {
        for (size_t i = 0; i < buffers[b].size(); ++i) buffers[b][i] = Value(r, i + run);
        ASSERT_THAT(prepared[b]->Run(), IsOk());
        for (size_t i = 0; i < buffers[b].size(); ++i) {
          ASSERT_EQ(buffers[b][i], Value(0, i + run) + Value(1, i + run) + Value(2, i + run))
              << "n=" << sizes[b] << " run=" << run << " i=" << i;
        }
      }
      ASSERT_THAT(job.comm(r).Barrier(), IsOk());
    }
  });
}

TEST(GlooCommunicatorTest, PreparedAllReduceMeanDividesTheExactSumOnce) {
  Job job(2);
  constexpr size_t kN = 5003;
  OnEveryRank(2, [&](int r) {
    std::vector<float> data(kN);
    auto prepared = job.comm(r).PrepareAllReduce(std::span(data), ReduceOp::kMean);
    ASSERT_THAT(prepared, IsOk());
    for (int run = 0; run < 2; ++run) {
      for (size_t i = 0; i < kN; ++i) data[i] = Value(r, i);
      ASSERT_THAT((*prepared)->Run(), IsOk());
      for (size_t i = 0; i < kN; ++i) ASSERT_EQ(data[i], (Value(0, i) + Value(1, i)) / 2.0f) << i;
    }
  });
}

TEST(GlooCommunicatorTest, BroadcastCopiesTheRootsBuffer) {
  Job job(3);
  for (size_t n : {5UL, 70001UL}) {
    OnEveryRank(3, [&](int r) {
      std::vector<float> data(n, static_cast<float>(r));
      if (r == 1) {
        for (size_t i = 0; i < n; ++i) data[i] = Value(1, i);
      }
      ASSERT_THAT(job.comm(r).Broadcast(std::span(data), /*root=*/1), IsOk());
      for (size_t i = 0; i < n; ++i) ASSERT_EQ(data[i], Value(1, i));
    });
  }
}

TEST(GlooCommunicatorTest, AllGatherOrdersByRank) {
  Job job(3);
  constexpr size_t kN = 1001;
  OnEveryRank(3, [&](int r) {
    std::vector<float> input(kN);
    for (size_t i = 0; i < kN; ++i) input[i] = Value(r, i);
    std::vector<float> output(kN * 3);
    ASSERT_THAT(job.comm(r).AllGather(std::span<const float>(input), std::span(output)), IsOk());
    for (int from = 0; from < 3; ++from) {
      for (size_t i = 0; i < kN; ++i) ASSERT_EQ(output[from * kN + i], Value(from, i));
    }
  });
}

TEST(GlooCommunicatorTest, BarrierAndAccessors) {
  Job job(2);
  OnEveryRank(2, [&](int r) {
    EXPECT_EQ(job.comm(r).rank(), r);
    EXPECT_EQ(job.comm(r).size(), 2);
    EXPECT_THAT(job.comm(r).Barrier(), IsOk());
  });
}

void (*SigpipeHandler())(int) {
  struct sigaction current {};
  sigaction(SIGPIPE, nullptr, &current);
  return current.sa_handler;
}

void OnSigpipe(int) {}

// A dead peer must surface as an error naming it, not as SIGPIPE killing us.
TEST(GlooCommunicatorTest, IgnoresSigpipeUnlessTheProgramHandlesIt) {
  std::signal(SIGPIPE, SIG_DFL);
  { Job job(1); }
  EXPECT_EQ(SigpipeHandler(), SIG_IGN);

  std::signal(SIGPIPE, OnSigpipe);
  { Job job(1); }
  EXPECT_EQ(SigpipeHandler(), &OnSigpipe);
  std::signal(SIGPIPE, SIG_DFL);
}

TEST(GlooCommunicatorTest, RejectsBadArguments) {
  Job job(1);
  std::vector<float> data(4);
  EXPECT_TRUE(absl::IsInvalidArgument(job.comm(0).Broadcast(std::span(data), 1)));
  std::vector<float> out(3);
  EXPECT_TRUE(
      absl::IsInvalidArgument(job.comm(0).AllGather(std::span<const float>(data), std::span(out))));
  // A one-rank job reduces to itself.
  data = {1, 2, 3, 4};
  ASSERT_THAT(job.comm(0).AllReduce(std::span(data), ReduceOp::kMean), IsOk());
  EXPECT_EQ(data, (std::vector<float>{1, 2, 3, 4}));
}

TEST(GlooCommunicatorTest, HungPeerFailsTheOthersNamingIt) {
  Job job(3, /*gloo_timeout=*/absl::Seconds(2));
  job.client(2).reset();  // rank 2 hangs: no heartbeats, no collectives
  const absl::Time start = absl::Now();
  OnEveryRank(2, [&](int r) {
    std::vector<float> data(1000, 1.0f);
    absl::Status status = job.comm(r).AllReduce(std::span(data), ReduceOp::kSum);
    EXPECT_TRUE(absl::IsAborted(status)) << status;
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr("allreduce"), HasSubstr("rank 2"), HasSubstr("missed heartbeats")));
    // The communicator stays broken.
    EXPECT_EQ(job.comm(r).Barrier(), status);
    auto prepared = job.comm(r).PrepareAllReduce(std::span(data), ReduceOp::kSum);
    EXPECT_EQ(prepared.status(), status);
  });
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST(GlooCommunicatorTest, HungPeerFailsAPreparedAllReduceNamingIt) {
  Job job(3, /*gloo_timeout=*/absl::Seconds(2));
  std::vector<std::vector<float>> data(2, std::vector<float>(1000, 1.0f));
  std::vector<std::unique_ptr<PreparedAllReduce>> prepared(2);
  OnEveryRank(2, [&](int r) {
    auto p = job.comm(r).PrepareAllReduce(std::span(data[r]), ReduceOp::kSum);
    ASSERT_THAT(p, IsOk());
    prepared[r] = *std::move(p);
  });
  job.client(2).reset();  // rank 2 hangs: no heartbeats, no collectives
  const absl::Time start = absl::Now();
  OnEveryRank(2, [&](int r) {
    absl::Status status = prepared[r]->Run();
    EXPECT_TRUE(absl::IsAborted(status)) << status;
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr("allreduce"), HasSubstr("rank 2"), HasSubstr("missed heartbeats")));
    EXPECT_EQ(prepared[r]->Run(), status);
  });
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

}  // namespace
}  // namespace trainpkg::collectives
