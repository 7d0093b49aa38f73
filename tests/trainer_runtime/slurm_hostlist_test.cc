#include "trainer_runtime/slurm_hostlist.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::runtime {
namespace {

using ::testing::ElementsAre;

std::vector<std::string> Hosts(std::string_view hostlist) {
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(hostlist);
  EXPECT_THAT(hosts, IsOk()) << hostlist;
  return hosts.value_or(std::vector<std::string>{});
}

TEST(ExpandHostlistTest, TensorFlowExample) {
  EXPECT_THAT(Hosts("n[1-2],m5,o[3-4,6,7-9]"),
              ElementsAre("n1", "n2", "m5", "o3", "o4", "o6", "o7", "o8", "o9"));
}

TEST(ExpandHostlistTest, SingleNamesAndSingleNumbers) {
  EXPECT_THAT(Hosts("localhost"), ElementsAre("localhost"));
  EXPECT_THAT(Hosts("a,b.example.com"), ElementsAre("a", "b.example.com"));
  EXPECT_THAT(Hosts("gpu[7]"), ElementsAre("gpu7"));
}

TEST(ExpandHostlistTest, ZeroPaddingFollowsTheLowerBound) {
  EXPECT_THAT(Hosts("node[01-03]"), ElementsAre("node01", "node02", "node03"));
  EXPECT_THAT(Hosts("node[098-101]"), ElementsAre("node098", "node099", "node100", "node101"));
  EXPECT_THAT(Hosts("n[8-10]"), ElementsAre("n8", "n9", "n10"));
  EXPECT_THAT(Hosts("n[009,10]"), ElementsAre("n009", "n10"));
}

TEST(ExpandHostlistTest, SuffixesAndSeveralBrackets) {
  EXPECT_THAT(Hosts("rack[1-2]-ib"), ElementsAre("rack1-ib", "rack2-ib"));
  EXPECT_THAT(Hosts("r[1-2]n[1-2]"), ElementsAre("r1n1", "r1n2", "r2n1", "r2n2"));
}

std::string Error(std::string_view hostlist) {
  absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(hostlist);
  EXPECT_EQ(hosts.status().code(), absl::StatusCode::kInvalidArgument) << hostlist;
  return std::string(hosts.status().message());
}

TEST(ExpandHostlistTest, RejectsMalformedLists) {
  EXPECT_EQ(Error(""), "\"\": empty host name");
  EXPECT_EQ(Error("a,,b"), "\"a,,b\": empty host name");
  EXPECT_EQ(Error("n[1-2"), "\"n[1-2\": unbalanced '['");
  EXPECT_EQ(Error("n1-2]"), "\"n1-2]\": unbalanced ']'");
  EXPECT_EQ(Error("n[1[2]]"), "\"n[1[2]]\": nested '['");
  EXPECT_EQ(Error("n[3-1]"), "\"3-1\": range runs backwards");
  EXPECT_EQ(Error("n[a-b]"), "\"a-b\": expected a number or a range like 1-4");
  EXPECT_EQ(Error("n[]"), "\"\": expected a number or a range like 1-4");
  EXPECT_EQ(Error("n[1-]"), "\"1-\": expected a number or a range like 1-4");
  EXPECT_EQ(Error("n[-1]"), "\"-1\": expected a number or a range like 1-4");
  EXPECT_EQ(Error("n[0-99999999]"), "\"0-99999999\": more than 1048576 hosts");
}

// Found by fuzz_slurm_hostlist: twenty [1-2] groups after a long name make
// a million long names; they were made (and every suffix's expansions
// before them) before the count was checked: 29 s and 1.3 GB under ASan.
// Now the size is known first.
TEST(ExpandHostlistTest, AListOfTooManyBytesIsRefusedBeforeTheNamesAreMade) {
  std::string hostlist(100, 'x');
  for (int group = 0; group < 20; ++group) hostlist += "[1-2]";
  testing::ChildRun run = testing::RunInChildMeasured([&] {
    absl::StatusOr<std::vector<std::string>> hosts = ExpandHostlist(hostlist);
    return !hosts.ok() && hosts.status().message().find(
                              "expands to more than 64 MiB of host names") != std::string::npos
               ? 0
               : 1;
  });
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_LE(run.peak_rss_kib, 256 * 1024);
  EXPECT_EQ(Error("n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]"
                  "n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]n[1-2]"),
            "\"1-2\": more than 1048576 hosts");
}

TEST(ExpandTasksPerNodeTest, ExpandsRepeats) {
  EXPECT_THAT(*ExpandTasksPerNode("3(x2),2,1"), ElementsAre(3, 3, 2, 1));
  EXPECT_THAT(*ExpandTasksPerNode("4"), ElementsAre(4));
  EXPECT_THAT(*ExpandTasksPerNode("1(x3)"), ElementsAre(1, 1, 1));
}

TEST(ExpandTasksPerNodeTest, RejectsMalformedEntries) {
  for (std::string_view bad : {"", "0", "x", "3(x2", "3(x0)", "3(2)", "(x2)", "2,", "-1"}) {
    absl::StatusOr<std::vector<int64_t>> counts = ExpandTasksPerNode(bad);
    EXPECT_EQ(counts.status().code(), absl::StatusCode::kInvalidArgument) << bad;
    EXPECT_THAT(std::string(counts.status().message()), ::testing::HasSubstr("expected N or N(xM)"))
        << bad;
  }
}

}  // namespace
}  // namespace trainpkg::runtime
