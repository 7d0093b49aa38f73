// dockerfiles/build-bases.sh refuses, before any debootstrap and with the
// reason, what cannot work: no REGISTRY argument, no registry answering, no
// apt source naming Debian bookworm, an archive it cannot reach. The apt
// sources are read from TRAINPKG_APT_ETC (apt's Dir::Etc): a classic
// one-line sources.list ([options] skipped, comments ignored) and deb822
// stanzas (Enabled: no skipped). Nothing is left in the cache directory.
// `--rootfs-only` (the rootfs tarball alone, for bench/build/bases_bench.py)
// asks for neither a registry nor a trainpkg binary.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/registry/registry_server.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using trainpkg::testing::ShellQuote;
using trainpkg::testing::ShellResult;

// Nothing listens on port 1 of 127.0.0.1 (binding it needs root, and no
// test does).
constexpr char kClosed[] = "127.0.0.1:1";

class BuildBasesErrorsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "build-bases.sh needs root (debootstrap, runc)";
    std::string pattern = (fs::temp_directory_path() / "build-bases-errors.XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    fs::create_directories(dir_ / "apt" / "sources.list.d");
    fs::create_directories(dir_ / "cache");
  }
  void TearDown() override {
    std::error_code ec;
    if (!dir_.empty()) fs::remove_all(dir_, ec);
  }

  ShellResult Script(const std::string& args, const std::string& trainpkg = TRAINPKG_CLI) {
    return trainpkg::testing::Sh(
        "TRAINPKG=" + ShellQuote(trainpkg) + " TRAINPKG_APT_ETC=" + ShellQuote((dir_ / "apt").string()) +
        " TRAINPKG_BASES_CACHE=" + ShellQuote((dir_ / "cache").string()) + " TRAINPKG_HOME=" +
        ShellQuote((dir_ / "home").string()) + " bash " DOCKERFILES_DIR "/build-bases.sh " + args);
  }
  std::vector<std::string> CacheEntries() const {
    std::vector<std::string> entries;
    for (const auto& e : fs::directory_iterator(dir_ / "cache")) {
      entries.push_back(e.path().filename().string());
    }
    return entries;
  }

  fs::path dir_;
};

TEST_F(BuildBasesErrorsTest, NoRegistryArgumentIsUsage) {
  ShellResult result = Script("");
  EXPECT_EQ(result.code, 2) << result.out;
  EXPECT_THAT(result.out, HasSubstr("usage: dockerfiles/build-bases.sh REGISTRY"));
}

TEST_F(BuildBasesErrorsTest, NoRegistryAnsweringIsRefusedFirst) {
  ShellResult result = Script(kClosed);
  EXPECT_EQ(result.code, 1) << result.out;
  EXPECT_THAT(result.out, HasSubstr(std::string("no registry answers at ") + kClosed));
  EXPECT_THAT(result.out, Not(HasSubstr("debootstrap --variant")));
  EXPECT_THAT(CacheEntries(), IsEmpty());
}

TEST_F(BuildBasesErrorsTest, ClassicSourcesListNamesTheArchiveAndAnUnreachableOneIsRefused) {
  trainpkg::registry::testing::RegistryServer registry;
  ASSERT_THAT(registry.Start({}), IsOk());
  std::ofstream(dir_ / "apt" / "sources.list")
      << "# deb http://commented.example/debian bookworm main\n"
      << "deb-src http://source.example/debian bookworm main\n"
      << "deb [arch=amd64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://"
      << kClosed << "/debian/ bookworm main contrib  # the archive\n"
      << "deb http://" << kClosed << "/debian-security bookworm-security main\n";
  std::ofstream(dir_ / "apt" / "sources.list.d" / "off.sources")
      << "Types: deb\nURIs: http://disabled.example/debian\nSuites: bookworm\n"
      << "Components: main\nEnabled: no\n";
  ShellResult result = Script(registry.host());
  EXPECT_EQ(result.code, 1) << result.out;
  EXPECT_THAT(result.out,
              HasSubstr(std::string("==> archive: http://") + kClosed + "/debian (bookworm)"));
  EXPECT_THAT(result.out, HasSubstr(std::string("cannot read http://") + kClosed +
                                    "/debian/dists/bookworm/Release (no network, or the "
                                    "archive is unreachable)"));
  EXPECT_THAT(CacheEntries(), IsEmpty());
}

TEST_F(BuildBasesErrorsTest, RootfsOnlyAsksForNoRegistryNorTrainpkgAndGoesToTheArchive) {
  std::ofstream(dir_ / "apt" / "sources.list")
      << "deb http://" << kClosed << "/debian bookworm main\n";
  ShellResult result = Script("--rootfs-only", (dir_ / "no-trainpkg").string());
  EXPECT_EQ(result.code, 1) << result.out;
  EXPECT_THAT(result.out, Not(HasSubstr("no trainpkg binary")));
  EXPECT_THAT(result.out, Not(HasSubstr("no registry answers")));
  EXPECT_THAT(result.out, HasSubstr(std::string("cannot read http://") + kClosed +
                                    "/debian/dists/bookworm/Release"));
  EXPECT_THAT(CacheEntries(), IsEmpty());
}

TEST_F(BuildBasesErrorsTest, Deb822SourcesWithoutBookwormAreRefused) {
  trainpkg::registry::testing::RegistryServer registry;
  ASSERT_THAT(registry.Start({}), IsOk());
  std::ofstream(dir_ / "apt" / "sources.list.d" / "debian.sources")
      << "Types: deb\nURIs: http://deb.debian.org/debian\nSuites: trixie trixie-updates\n"
      << "Components: main\n\n"
      << "Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\n"
      << "Components: main\n";
  ShellResult result = Script(registry.host());
  EXPECT_EQ(result.code, 1) << result.out;
  EXPECT_THAT(result.out, HasSubstr("no apt source names Debian bookworm"));
  EXPECT_THAT(result.out, HasSubstr((dir_ / "apt").string() + "/sources.list.d/*.sources"));
  EXPECT_THAT(CacheEntries(), IsEmpty());
}

}  // namespace
