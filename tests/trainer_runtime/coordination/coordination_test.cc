// N ranks as threads of one process, talking to a real coordination server on
// 127.0.0.1 through real gRPC clients.
#include <atomic>
#include <limits>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/coordination/coordination_client.h"
#include "trainer_runtime/coordination/coordination_server.h"
#include "trainer_runtime/coordination/coordinator.h"
#include "trainer_runtime/coordination/rank_names.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::coordination {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

CoordinationOptions FastOptions() {
  return {.heartbeat_interval = absl::Milliseconds(100),
          .heartbeat_timeout = absl::Seconds(1),
          .rendezvous_timeout = absl::Seconds(2),
          .shutdown_timeout = absl::Seconds(2),
          .job_secret = ""};
}

std::vector<std::string> Names(int n) {
  std::vector<std::string> names;
  for (int r = 0; r < n; ++r) names.push_back(PlainRankName(r));
  return names;
}

// A server and one client per rank; nothing registered yet.
struct Job {
  std::unique_ptr<CoordinationServer> server;
  std::vector<std::unique_ptr<CoordinationClient>> clients;
};

Job MakeJob(int n, const CoordinationOptions& options = FastOptions()) {
  Job job;
  auto server = CoordinationServer::Start("127.0.0.1:0", Names(n), options);
  EXPECT_THAT(server, IsOk());
  job.server = *std::move(server);
  EXPECT_GT(job.server->port(), 0);
  for (int r = 0; r < n; ++r) {
    auto client = CoordinationClient::Create(job.server->address(), r, Names(n), options);
    EXPECT_THAT(client, IsOk());
    job.clients.push_back(*std::move(client));
  }
  return job;
}

// Runs fn(rank) on one thread per rank and waits for all.
template <typename Fn>
void OnEveryRank(int n, Fn fn) {
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back(fn, r);
  for (auto& t : threads) t.join();
}

void RegisterAll(Job& job) {
  OnEveryRank(static_cast<int>(job.clients.size()),
              [&](int r) { ASSERT_THAT(job.clients[r]->Register(), IsOk()); });
}

TEST(CoordinationTest, RendezvousReturnsWhenAllRanksJoined) {
  Job job = MakeJob(4);
  std::atomic<int> joined = 0;
  OnEveryRank(4, [&](int r) {
    if (r == 3) absl::SleepFor(absl::Milliseconds(200));
    EXPECT_THAT(job.clients[r]->Register(), IsOk());
    ++joined;
  });
  EXPECT_EQ(joined, 4);
  OnEveryRank(4, [&](int r) { EXPECT_THAT(job.clients[r]->Goodbye(), IsOk()); });
  EXPECT_THAT(job.server->Shutdown(), IsOk());
}

TEST(CoordinationTest, GetWaitsUntilTheKeyIsSet) {
  Job job = MakeJob(2);
  RegisterAll(job);
  std::thread setter([&] {
    absl::SleepFor(absl::Milliseconds(200));
    EXPECT_THAT(job.clients[0]->Set("id", std::string("a\0b", 3)), IsOk());
  });
  auto value = job.clients[1]->Get("id", absl::Seconds(5));
  setter.join();
  ASSERT_THAT(value, IsOk());
  EXPECT_EQ(*value, std::string("a\0b", 3));
}

TEST(CoordinationTest, GetTimesOutNamingTheKey) {
  Job job = MakeJob(1);
  RegisterAll(job);
  const absl::Time start = absl::Now();
  auto value = job.clients[0]->Get("never", absl::Milliseconds(200));
  EXPECT_TRUE(absl::IsDeadlineExceeded(value.status())) << value.status();
  EXPECT_THAT(std::string(value.status().message()), HasSubstr("'never'"));
  EXPECT_LT(absl::Now() - start, absl::Seconds(1));
}

TEST(CoordinationTest, AddIsAtomicAcrossRanks) {
  Job job = MakeJob(3);
  RegisterAll(job);
  OnEveryRank(3, [&](int r) {
    for (int i = 0; i < 20; ++i) ASSERT_THAT(job.clients[r]->Add("count", 1), IsOk());
  });
  auto total = job.clients[0]->Add("count", 0);
  ASSERT_THAT(total, IsOk());
  EXPECT_EQ(*total, 60);
}

// Found by fuzz_coordination_service under UBSan: adding past INT64_MAX
// was signed overflow (and wrapped the counter).
TEST(CoordinationTest, AddPastTheInt64RangeIsRefusedAndKeepsTheValue) {
  Job job = MakeJob(1);
  RegisterAll(job);
  ASSERT_THAT(job.clients[0]->Set("count", "9223372036854775807"), IsOk());
  auto sum = job.clients[0]->Add("count", 1);
  EXPECT_EQ(sum.status().code(), absl::StatusCode::kOutOfRange) << sum.status();
  EXPECT_THAT(std::string(sum.status().message()),
              HasSubstr("key 'count' holds 9223372036854775807; adding 1 leaves the 64-bit "
                        "integer range"));
  ASSERT_THAT(job.clients[0]->Set("low", "-9223372036854775808"), IsOk());
  EXPECT_EQ(job.clients[0]->Add("low", -1).status().code(), absl::StatusCode::kOutOfRange);
  auto kept = job.clients[0]->Add("count", 0);
  ASSERT_THAT(kept, IsOk());
  EXPECT_EQ(*kept, std::numeric_limits<int64_t>::max());
}

TEST(CoordinationTest, BarrierIsReusable) {
  constexpr int kRanks = 3;
  constexpr int kRounds = 5;
  Job job = MakeJob(kRanks);
  RegisterAll(job);
  std::atomic<int> arrivals = 0;
  OnEveryRank(kRanks, [&](int r) {
    for (int round = 0; round < kRounds; ++round) {
      ++arrivals;
      ASSERT_THAT(job.clients[r]->Barrier("step", absl::Seconds(5)), IsOk());
      // Nobody passes round `round` before everyone has arrived at it.
      EXPECT_GE(arrivals.load(), (round + 1) * kRanks);
    }
  });
}

TEST(CoordinationTest, BarrierTimeoutNamesTheMissingRank) {
  Job job = MakeJob(2);
  RegisterAll(job);
  absl::Status status = job.clients[0]->Barrier("lonely", absl::Milliseconds(200));
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
  EXPECT_THAT(std::string(status.message()), AllOf(HasSubstr("'lonely'"), HasSubstr("rank 1")));
}

TEST(CoordinationTest, RankThatNeverArrivesFailsTheOthersNamingIt) {
  Job job = MakeJob(3);  // rendezvous timeout 2s
  const absl::Time start = absl::Now();
  OnEveryRank(2, [&](int r) {
    absl::Status status = job.clients[r]->Register();
    EXPECT_TRUE(absl::IsAborted(status)) << status;
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr("rank 2"), HasSubstr("did not join within 2s")));
  });
  EXPECT_LT(absl::Now() - start, absl::Seconds(4));
}

TEST(CoordinationTest, RankThatStopsHeartbeatingFailsTheOthersNamingIt) {
  Job job = MakeJob(3);  // heartbeat timeout 1s
  RegisterAll(job);
  job.clients[2].reset();  // rank 2 "crashes": no goodbye, no more heartbeats
  const absl::Time start = absl::Now();
  OnEveryRank(2, [&](int r) {
    absl::Status status = job.clients[r]->Barrier("never-complete", absl::Seconds(30));
    EXPECT_TRUE(absl::IsAborted(status)) << status;
    EXPECT_THAT(std::string(status.message()),
                AllOf(HasSubstr("rank 2"), HasSubstr("missed heartbeats")));
  });
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
  EXPECT_TRUE(absl::IsAborted(job.clients[0]->JobStatus()));
}

TEST(CoordinationTest, LosingTheCoordinatorFailsTheClientNamingRankZero) {
  Job job = MakeJob(2);
  RegisterAll(job);
  job.server.reset();
  const absl::Time start = absl::Now();
  absl::Status failure = job.clients[1]->WaitForJobFailure(absl::Seconds(5));
  EXPECT_TRUE(absl::IsAborted(failure)) << failure;
  EXPECT_THAT(std::string(failure.message()),
              AllOf(HasSubstr("lost the coordinator"), HasSubstr("rank 0")));
  EXPECT_LT(absl::Now() - start, absl::Seconds(3));
}

TEST(CoordinationTest, ShutdownWaitsForGoodbyes) {
  Job job = MakeJob(2);
  RegisterAll(job);
  std::thread late([&] {
    absl::SleepFor(absl::Milliseconds(300));
    EXPECT_THAT(job.clients[1]->Goodbye(), IsOk());
  });
  EXPECT_THAT(job.clients[0]->Goodbye(), IsOk());
  EXPECT_THAT(job.server->Shutdown(), IsOk());
  late.join();
  // Rank 1 left cleanly: nobody saw a failure.
  EXPECT_THAT(job.clients[1]->JobStatus(), IsOk());
}

TEST(CoordinationTest, ShutdownNamesRanksThatNeverSaidGoodbye) {
  CoordinationOptions options = FastOptions();
  options.shutdown_timeout = absl::Milliseconds(300);
  Job job = MakeJob(2, options);
  RegisterAll(job);
  EXPECT_THAT(job.clients[0]->Goodbye(), IsOk());
  absl::Status status = job.server->Shutdown();
  EXPECT_TRUE(absl::IsDeadlineExceeded(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("rank 1"));
}

TEST(CoordinationTest, BarrierFailsWhenAPeerAlreadyLeft) {
  Job job = MakeJob(2);
  RegisterAll(job);
  ASSERT_THAT(job.clients[1]->Goodbye(), IsOk());
  absl::Status status = job.clients[0]->Barrier("after", absl::Seconds(5));
  EXPECT_TRUE(absl::IsFailedPrecondition(status)) << status;
  EXPECT_THAT(std::string(status.message()), HasSubstr("rank 1 already finished"));
}

TEST(CoordinatorTest, SingleProcessCoordinatesWithItself) {
  runtime::ClusterInfo info;  // rank 0 of 1, no address
  auto coordinator = Coordinator::Start(info, FastOptions());
  ASSERT_THAT(coordinator, IsOk());
  CoordinationClient& client = (*coordinator)->client();
  ASSERT_THAT(client.Set("k", "v"), IsOk());
  EXPECT_EQ(*client.Get("k", absl::Seconds(1)), "v");
  EXPECT_THAT(client.Barrier("b", absl::Seconds(1)), IsOk());
  EXPECT_THAT((*coordinator)->Shutdown(), IsOk());
}

TEST(CoordinatorTest, RejectsTasksOutsideTheCollective) {
  runtime::ClusterInfo info;
  info.task_type = "ps";
  info.rank = -1;
  EXPECT_TRUE(absl::IsInvalidArgument(Coordinator::Start(info, FastOptions()).status()));
}

TEST(RankNamesTest, NamesChiefAndWorkersWithAddresses) {
  runtime::ClusterInfo info;
  info.task_type = "worker";
  info.task_index = 1;
  info.rank = 2;
  info.world_size = 3;
  info.worker_addresses = {"127.0.0.1:1000", "127.0.0.1:1001", "127.0.0.1:1002"};
  EXPECT_THAT(RankNames(info), ::testing::ElementsAre("rank 0 (chief 0, 127.0.0.1:1000)",
                                                      "rank 1 (worker 0, 127.0.0.1:1001)",
                                                      "rank 2 (worker 1, 127.0.0.1:1002)"));
}

TEST(RankNamesTest, WithoutChiefWorkerZeroIsRankZero) {
  runtime::ClusterInfo info;
  info.source = "torchrun";
  info.task_type = "worker";
  info.task_index = 1;
  info.rank = 1;
  info.world_size = 2;
  EXPECT_THAT(RankNames(info), ::testing::ElementsAre("rank 0 (worker 0)", "rank 1 (worker 1)"));
}

}  // namespace
}  // namespace trainpkg::coordination
