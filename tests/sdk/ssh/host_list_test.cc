#include "sdk/ssh/host_list.h"

#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk::ssh {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::StatusIs;

TEST(HostListTest, ParsesHorovodrunSyntaxWithSlotsDefaultingToOne) {
  absl::StatusOr<std::vector<SshHost>> hosts =
      ParseHostList("node1:4,alice@node2,10.0.0.3:2,[fd00::1]");
  ASSERT_THAT(hosts, IsOk());
  EXPECT_THAT(*hosts, ElementsAre(SshHost{"node1", 4}, SshHost{"alice@node2", 1},
                                  SshHost{"10.0.0.3", 2}, SshHost{"[fd00::1]", 1}));
}

TEST(HostListTest, RefusesBadEntriesNamingThem) {
  EXPECT_THAT(ParseHostList("node1:2,,node2"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("empty entry")));
  EXPECT_THAT(ParseHostList("node1:0"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("\"node1:0\": slots \"0\" is not a number from 1 to 1024")));
  EXPECT_THAT(ParseHostList("node1:x"), StatusIs(absl::StatusCode::kInvalidArgument));
  EXPECT_THAT(ParseHostList("node1:1,node1:2"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("listed twice")));
  // ssh would read these as options or a shell as syntax.
  EXPECT_THAT(ParseHostList("-oProxyCommand=x:1"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("starts with '-'")));
  EXPECT_THAT(ParseHostList("a;b"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("the character ';'")));
}

TEST(HostListTest, ParsesOpenMpiHostfile) {
  absl::StatusOr<std::vector<SshHost>> hosts = ParseHostfile(
      "# the lab\n"
      "node1 slots=4 max_slots=8\n"
      "\n"
      "  node2\t slots=2   # the small one\n"
      "node3\n",
      "hosts.txt");
  ASSERT_THAT(hosts, IsOk());
  EXPECT_THAT(*hosts, ElementsAre(SshHost{"node1", 4}, SshHost{"node2", 2}, SshHost{"node3", 1}));
}

TEST(HostListTest, HostfileErrorsNameFileAndLine) {
  EXPECT_THAT(ParseHostfile("node1 slots=2\nnode2 cpus=3\n", "hosts.txt"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("hosts.txt:2: \"cpus=3\" is not slots=N")));
  EXPECT_THAT(ParseHostfile("node1 slots=-1\n", "h"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("h:1: slots \"-1\"")));
  EXPECT_THAT(ParseHostfile("# nothing\n\n", "h"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("h: no hosts")));
}

TEST(HostListTest, PlacesReplicasInOrderOverTheSlots) {
  const std::vector<SshHost> hosts = {{"a", 2}, {"b", 1}, {"c", 3}};
  absl::StatusOr<std::vector<size_t>> placement = PlaceReplicas(hosts, 4);
  ASSERT_THAT(placement, IsOk());
  EXPECT_THAT(*placement, ElementsAre(0, 0, 1, 2));
  placement = PlaceReplicas({{"a", 1}, {"b", 1}, {"c", 1}}, 3);
  ASSERT_THAT(placement, IsOk());
  EXPECT_THAT(*placement, ElementsAre(0, 1, 2));
}

TEST(HostListTest, TooFewSlotsSaysHowMany) {
  EXPECT_THAT(PlaceReplicas({{"a", 1}, {"b", 1}}, 3),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       HasSubstr("the job has 3 replicas but the hosts give 2 slots")));
  EXPECT_THAT(PlaceReplicas({}, 1),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("no hosts")));
}

}  // namespace
}  // namespace trainpkg::sdk::ssh
