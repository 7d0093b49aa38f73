// The hierarchical communicator with ranks as threads of one process,
// grouped by hand as if on several hosts (each group its own shared-memory
// segment, the leaders over Gloo on 127.0.0.1), and GroupsByHost.
#include "trainer_runtime/collectives/hierarchical_communicator.h"

#include <memory>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "trainer_runtime/coordination/coordination_client.h"
#include "trainer_runtime/coordination/coordination_server.h"
#include "trainer_runtime/coordination/rank_names.h"

namespace trainpkg::collectives {
namespace {

using ::testing::ElementsAre;

coordination::CoordinationOptions FastOptions() {
  return {.heartbeat_interval = absl::Milliseconds(100),
          .heartbeat_timeout = absl::Seconds(2),
          .rendezvous_timeout = absl::Seconds(5),
          .shutdown_timeout = absl::Seconds(2),
          .job_secret = ""};
}

template <typename Fn>
void OnEveryRank(int n, Fn fn) {
  std::vector<std::thread> threads;
  for (int r = 0; r < n; ++r) threads.emplace_back(fn, r);
  for (auto& t : threads) t.join();
}

// A job whose ranks are in the groups `group_of` says.
class Job {
 public:
  explicit Job(const std::vector<int>& group_of) : n_(static_cast<int>(group_of.size())) {
    std::vector<std::string> names;
    for (int r = 0; r < n_; ++r) names.push_back(coordination::PlainRankName(r));
    auto server = coordination::CoordinationServer::Start("127.0.0.1:0", names, FastOptions());
    EXPECT_TRUE(server.ok()) << server.status();
    server_ = *std::move(server);
    clients_.resize(n_);
    comms_.resize(n_);
    OnEveryRank(n_, [&](int r) {
      auto client =
          coordination::CoordinationClient::Create(server_->address(), r, names, FastOptions());
      ASSERT_TRUE(client.ok()) << client.status();
      clients_[r] = *std::move(client);
      ASSERT_TRUE(clients_[r]->Register().ok());
      auto comm = CreateHierarchicalCommunicator(
          *clients_[r], group_of, {.timeout = absl::Seconds(10)},
          {.timeout = absl::Seconds(10), .name = "test", .slot_bytes = 16384});
      ASSERT_TRUE(comm.ok()) << comm.status();
      comms_[r] = *std::move(comm);
    });
  }
  Communicator& comm(int r) { return *comms_[r]; }

 private:
  int n_;
  std::unique_ptr<coordination::CoordinationServer> server_;
  std::vector<std::unique_ptr<coordination::CoordinationClient>> clients_;
  std::vector<std::unique_ptr<Communicator>> comms_;
};

float Value(int rank, size_t i) {
  return static_cast<float>((i * 7 + static_cast<size_t>(rank) * 13) % 1021);
}

// Groups of different sizes, interleaved ranks, and singletons.
const std::vector<std::vector<int>> kLayouts = {
    {0, 0, 1, 1, 1}, {0, 1, 0, 1}, {0, 1, 1, 2}, {0, 0, 0, 1}};

TEST(HierarchicalCommunicatorTest, EveryOperationOnEveryLayout) {
  for (const std::vector<int>& layout : kLayouts) {
    const int n = static_cast<int>(layout.size());
    Job job(layout);
    OnEveryRank(n, [&](int r) {
      for (size_t size : {1UL, 4097UL, 100003UL}) {
        std::vector<float> data(size);
        for (size_t i = 0; i < size; ++i) data[i] = Value(r, i);
        ASSERT_TRUE(job.comm(r).AllReduce(std::span(data), ReduceOp::kSum).ok());
        for (size_t i = 0; i < size; ++i) {
          float want = 0;
          for (int q = 0; q < n; ++q) want += Value(q, i);
          ASSERT_EQ(data[i], want) << "rank " << r << " size " << size << " i " << i;
        }
      }
      std::vector<double> mean(3001, 1099511627776.0 + r);
      ASSERT_TRUE(job.comm(r).AllReduce(std::span(mean), ReduceOp::kMean).ok());
      ASSERT_EQ(mean.back(), 1099511627776.0 + (n - 1) / 2.0);
      for (int root = 0; root < n; ++root) {
        std::vector<float> data(5003, static_cast<float>(r));
        ASSERT_TRUE(job.comm(r).Broadcast(std::span(data), root).ok());
        ASSERT_EQ(data.front(), static_cast<float>(root));
        ASSERT_EQ(data.back(), static_cast<float>(root));
      }
      const std::vector<float> mine(3, static_cast<float>(r));
      std::vector<float> all(3 * static_cast<size_t>(n));
      ASSERT_TRUE(job.comm(r).AllGather(std::span<const float>(mine), std::span(all)).ok());
      for (int q = 0; q < n; ++q) ASSERT_EQ(all[3 * static_cast<size_t>(q) + 2], q);
      ASSERT_TRUE(job.comm(r).Barrier().ok());
    });
  }
}

TEST(HierarchicalCommunicatorTest, GroupsByHostNumbersByFirstRankAndKeepsUnknownsApart) {
  EXPECT_THAT(GroupsByHost({"b", "a", "b", "c", "a"}), ElementsAre(0, 1, 0, 2, 1));
  EXPECT_THAT(GroupsByHost({"", "", "x"}), ElementsAre(0, 1, 2));
}

}  // namespace
}  // namespace trainpkg::collectives
