// The fixture of the SSH backend's tests (ssh_hosts.h) on its own: each
// namespace host answers ssh as itself, hosts reach each other, a host
// without sshd refuses, and Stop() leaves no namespace, bridge or sshd.
#include "tests/sdk/ssh/ssh_hosts.h"

#include <signal.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::Sh;

TEST(SshHostsTest, HostsAnswerAsThemselvesAndTearDownCompletely) {
  if (std::string why = SshHosts::Unavailable(); !why.empty()) GTEST_SKIP() << why;
  std::vector<std::string> names;
  std::string address2;
  {
    SshHosts hosts;
    ASSERT_THAT(hosts.Start({.hosts = 3, .without_sshd = {3}}), IsOk());
    for (int h = 1; h <= 3; ++h) names.push_back(hosts.netns(h));
    address2 = hosts.address(2);
    for (int h = 1; h <= 2; ++h) {
      SshHosts::Result ip = hosts.Ssh(h, "ip -o -4 addr show eth0");
      EXPECT_EQ(ip.code, 0) << ip.out << hosts.Logs();
      EXPECT_THAT(ip.out, HasSubstr(hosts.address(h) + "/24")) << "host" << h;
    }
    SshHosts::Result home = hosts.Ssh(2, "echo $HOME");
    EXPECT_EQ(home.out, hosts.home(2).string() + "\n");
    // host1 reaches host2's sshd across the bridge.
    SshHosts::Result banner =
        hosts.Ssh(1, "bash -c 'exec 3<>/dev/tcp/" + address2 + "/22 && head -c 7 <&3'");
    EXPECT_EQ(banner.out, "SSH-2.0") << banner.out;
    // host3 is on the network without sshd: ssh fails at once.
    SshHosts::Result refused = hosts.Ssh(3, "true");
    EXPECT_EQ(refused.code, 255);
    EXPECT_THAT(refused.out, HasSubstr("Connection refused"));
    // A process left in a namespace is seen there.
    SshHosts::Result sleeper = hosts.Ssh(2, "setsid sleep 300 </dev/null >/dev/null 2>&1 &");
    EXPECT_EQ(sleeper.code, 0) << sleeper.out;
    EXPECT_TRUE(WaitFor([&] { return hosts.ProcessesIn(2).size() == 1; }, absl::Seconds(5)))
        << hosts.ProcessesIn(2).size();
  }
  const std::string netns = Sh("ip netns list").out;
  for (const std::string& name : names) EXPECT_THAT(netns, Not(HasSubstr(name)));
  EXPECT_THAT(Sh("ip -4 addr").out,
              Not(HasSubstr(address2.substr(0, address2.rfind('.')) + ".1/")));
  EXPECT_THAT(Sh("pgrep -f 'slee[p] 300'").code, 1);
}

}  // namespace
}  // namespace trainpkg::sdk::testing
