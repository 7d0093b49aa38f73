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
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/collectives/thread_job.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::collectives {
namespace {

using ::testing::ElementsAre;

using testing::OnEveryRank;

// A job whose ranks are in the groups `group_of` says.
class Job : public testing::ThreadJob {
 public:
  explicit Job(const std::vector<int>& group_of)
      : ThreadJob(static_cast<int>(group_of.size()),
                  [group_of](coordination::CoordinationClient& client) {
                    return CreateHierarchicalCommunicator(
                        client, group_of, {.timeout = absl::Seconds(10)},
                        {.timeout = absl::Seconds(10), .name = "test", .slot_bytes = 16384});
                  }) {}
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
        ASSERT_THAT(job.comm(r).AllReduce(std::span(data), ReduceOp::kSum), IsOk());
        for (size_t i = 0; i < size; ++i) {
          float want = 0;
          for (int q = 0; q < n; ++q) want += Value(q, i);
          ASSERT_EQ(data[i], want) << "rank " << r << " size " << size << " i " << i;
        }
      }
      std::vector<double> mean(3001, 1099511627776.0 + r);
      ASSERT_THAT(job.comm(r).AllReduce(std::span(mean), ReduceOp::kMean), IsOk());
      ASSERT_EQ(mean.back(), 1099511627776.0 + (n - 1) / 2.0);
      for (int root = 0; root < n; ++root) {
        std::vector<float> data(5003, static_cast<float>(r));
        ASSERT_THAT(job.comm(r).Broadcast(std::span(data), root), IsOk());
        ASSERT_EQ(data.front(), static_cast<float>(root));
        ASSERT_EQ(data.back(), static_cast<float>(root));
      }
      const std::vector<float> mine(3, static_cast<float>(r));
      std::vector<float> all(3 * static_cast<size_t>(n));
      ASSERT_THAT(job.comm(r).AllGather(std::span<const float>(mine), std::span(all)), IsOk());
      for (int q = 0; q < n; ++q) ASSERT_EQ(all[3 * static_cast<size_t>(q) + 2], q);
      ASSERT_THAT(job.comm(r).Barrier(), IsOk());
    });
  }
}

TEST(HierarchicalCommunicatorTest, GroupsByHostNumbersByFirstRankAndKeepsUnknownsApart) {
  EXPECT_THAT(GroupsByHost({"b", "a", "b", "c", "a"}), ElementsAre(0, 1, 0, 2, 1));
  EXPECT_THAT(GroupsByHost({"", "", "x"}), ElementsAre(0, 1, 2));
}

}  // namespace
}  // namespace trainpkg::collectives
