// packager/run/hosts_file.h: `--add-host NAME:IP` parsing and the /etc/hosts
// containers see.
#include "packager/run/hosts_file.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::packager::run {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(ParseHostEntryTest, AcceptsIpv4Ipv6AndBracketedIpv6) {
  EXPECT_EQ(*ParseHostEntry("db:10.0.0.5", "--add-host"), (HostEntry{"db", "10.0.0.5"}));
  EXPECT_EQ(*ParseHostEntry("db.local:::1", "--add-host"), (HostEntry{"db.local", "::1"}));
  EXPECT_EQ(*ParseHostEntry("my_db-1:[fe80::1]", "--add-host"), (HostEntry{"my_db-1", "fe80::1"}));
}

TEST(ParseHostEntryTest, ErrorsNameTheFlagTheValueAndTheForm) {
  for (const char* bad : {"db", ":10.0.0.5", "db:", "db:10.0.0.256", "db:host-gateway",
                          "d b:10.0.0.5", "db/x:10.0.0.5", "db:[::1"}) {
    absl::StatusOr<HostEntry> entry = ParseHostEntry(bad, "--add-host");
    ASSERT_FALSE(entry.ok()) << bad;
    EXPECT_EQ(entry.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(entry.status().message(),
                AllOf(HasSubstr(std::string("--add-host \"") + bad + "\""), HasSubstr("NAME:IP")))
        << bad;
  }
  EXPECT_THAT(ParseHostEntry("db:10.0.0.256", "--add-host").status().message(),
              HasSubstr("\"10.0.0.256\" is not an IPv4 or IPv6 address"));
  EXPECT_THAT(ParseHostEntry("d b:1.2.3.4", "--add-host").status().message(),
              HasSubstr("\"d b\" is not a host name"));
  EXPECT_FALSE(ParseHostEntry(std::string(254, 'a') + ":1.2.3.4", "--add-host").ok());
}

TEST(HostsFileTest, LocalhostLinesThenTheEntriesInOrder) {
  const HostEntry entries[] = {{"buildkitsandbox", "127.0.0.1"}, {"db", "10.0.0.5"}};
  EXPECT_EQ(HostsFile(entries),
            "127.0.0.1\tlocalhost\n"
            "::1\tlocalhost ip6-localhost ip6-loopback\n"
            "127.0.0.1\tbuildkitsandbox\n"
            "10.0.0.5\tdb\n");
}

}  // namespace
}  // namespace trainpkg::packager::run
