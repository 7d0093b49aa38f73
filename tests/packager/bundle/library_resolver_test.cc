// The loader's search rules on a fake root of minimal ELF files
// (fake_elf.h): RUNPATH with $ORIGIN, RPATH inheritance and its eclipse by
// RUNPATH, LD_LIBRARY_PATH order, ld.so.conf includes, $LIB/$PLATFORM,
// wrong-machine candidates, DF_1_NODEFLIB, symlink chains, the interpreter.
#include "packager/bundle/library_resolver.h"

#include <filesystem>
#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/packager/bundle/fake_elf.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::bundle {
namespace {

namespace fs = std::filesystem;
using builder::testing::ScratchDir;
using ::testing::ElementsAre;
using testing::FakeElf;
using ::testing::HasSubstr;
using testing::MakeMergedUsrRoot;
using testing::WriteFakeElf;

constexpr char kInterp[] = "/lib64/ld-linux-x86-64.so.2";

class LibraryResolverTest : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = dir_.path() / "root";
    MakeMergedUsrRoot(root_);
    WriteFakeElf(root_ / "usr/lib/x86_64-linux-gnu/libc.so.6",
                 {.needed = {"ld-linux-x86-64.so.2"}, .soname = "libc.so.6"});
    auto config = DebianLoaderConfig(EM_X86_64);
    ASSERT_THAT(config, IsOk());
    config_ = *config;
    config_.root = root_;
  }

  void Exe(const std::string& path, FakeElf elf) {
    elf.type = ET_EXEC;
    elf.interpreter = kInterp;
    WriteFakeElf(root_ / fs::path(path).relative_path(), elf);
  }
  void Lib(const std::string& path, FakeElf elf) {
    WriteFakeElf(root_ / fs::path(path).relative_path(), elf);
  }

  const ResolvedObject& Find(const Closure& closure, const std::string& name) {
    for (const ResolvedObject& object : closure.libraries) {
      if (object.name == name) return object;
    }
    ADD_FAILURE() << name << " is not in the closure";
    static const ResolvedObject kNone;
    return kNone;
  }

  ScratchDir dir_;
  fs::path root_;
  LoaderConfig config_;
};

TEST_F(LibraryResolverTest, RunpathWithOriginAndSymlinkChain) {
  Exe("/app/bin/trainer", {.needed = {"libfoo.so.1", "libc.so.6"}, .runpath = "$ORIGIN/../lib"});
  Lib("/app/lib/libfoo.so.1.2.3",
      {.needed = {"libbar.so.2", "libc.so.6"}, .soname = "libfoo.so.1"});
  fs::create_symlink("libfoo.so.1.2.3", root_ / "app/lib/libfoo.so.1");
  Lib("/usr/lib/x86_64-linux-gnu/libbar.so.2", {.needed = {"libc.so.6"}});

  auto closure = ResolveClosure("/app/bin/trainer", config_);
  ASSERT_THAT(closure, IsOk());
  ASSERT_TRUE(closure->interpreter.has_value());
  EXPECT_EQ(closure->interpreter->walk.target, "/usr/lib/x86_64-linux-gnu/ld-linux-x86-64.so.2");
  EXPECT_THAT(closure->interpreter->walk.links,
              ElementsAre(SymlinkHop{"/lib64", "usr/lib64"},
                          SymlinkHop{"/usr/lib64/ld-linux-x86-64.so.2",
                                     "../lib/x86_64-linux-gnu/ld-linux-x86-64.so.2"}));
  std::vector<std::string> names;
  for (const ResolvedObject& object : closure->libraries) names.push_back(object.name);
  // Load order (breadth first); ld-linux is the interpreter, loaded already.
  EXPECT_THAT(names, ElementsAre("libfoo.so.1", "libc.so.6", "libbar.so.2"));

  const ResolvedObject& foo = Find(*closure, "libfoo.so.1");
  EXPECT_EQ(foo.via, FoundVia::kRunpath);
  EXPECT_TRUE(foo.origin_relative);
  EXPECT_EQ(foo.path, "/app/bin/../lib/libfoo.so.1");
  EXPECT_THAT(foo.walk.links, ElementsAre(SymlinkHop{"/app/lib/libfoo.so.1", "libfoo.so.1.2.3"}));
  EXPECT_EQ(foo.walk.target, "/app/lib/libfoo.so.1.2.3");
  const ResolvedObject& libc = Find(*closure, "libc.so.6");
  EXPECT_EQ(libc.via, FoundVia::kDefaultDir);
  EXPECT_EQ(libc.path, "/lib/x86_64-linux-gnu/libc.so.6");  // the first default dir
  EXPECT_THAT(libc.walk.links, ElementsAre(SymlinkHop{"/lib", "usr/lib"}));
  EXPECT_EQ(Find(*closure, "libbar.so.2").needed_by, "/app/bin/../lib/libfoo.so.1");
}

TEST_F(LibraryResolverTest, RunpathIsNotInheritedButRpathIs) {
  Lib("/app/lib/libfoo.so.1", {.needed = {"libdep.so"}});
  Lib("/app/lib/libdep.so", {});
  Exe("/app/bin/runpath", {.needed = {"libfoo.so.1"}, .runpath = "$ORIGIN/../lib"});
  auto runpath = ResolveClosure("/app/bin/runpath", config_);
  ASSERT_FALSE(runpath.ok());
  EXPECT_EQ(runpath.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(runpath.status().message(),
              HasSubstr("libdep.so (needed by /app/bin/../lib/libfoo.so.1) not found in: "
                        "/lib/x86_64-linux-gnu, /usr/lib/x86_64-linux-gnu, /lib, /usr/lib"));

  Exe("/app/bin/rpath", {.needed = {"libfoo.so.1"}, .rpath = "$ORIGIN/../lib"});
  auto rpath = ResolveClosure("/app/bin/rpath", config_);
  ASSERT_THAT(rpath, IsOk());
  EXPECT_EQ(Find(*rpath, "libdep.so").via, FoundVia::kRpath);
  EXPECT_EQ(Find(*rpath, "libdep.so").path, "/app/bin/../lib/libdep.so");
}

TEST_F(LibraryResolverTest, RunpathEclipsesRpathAndLdLibraryPathComesBetween) {
  Lib("/rpath/libx.so", {});
  Lib("/runpath/libx.so", {});
  Lib("/llp/libx.so", {});
  Exe("/bin/both", {.needed = {"libx.so"}, .rpath = "/rpath", .runpath = "/runpath"});
  auto both = ResolveClosure("/bin/both", config_);
  ASSERT_THAT(both, IsOk());
  EXPECT_EQ(Find(*both, "libx.so").path, "/runpath/libx.so");

  config_.ld_library_path = {"/llp"};
  both = ResolveClosure("/bin/both", config_);
  ASSERT_THAT(both, IsOk());
  EXPECT_EQ(Find(*both, "libx.so").via, FoundVia::kLdLibraryPath);

  Exe("/bin/rpath_only", {.needed = {"libx.so"}, .rpath = "/rpath"});
  auto rpath = ResolveClosure("/bin/rpath_only", config_);
  ASSERT_THAT(rpath, IsOk());
  EXPECT_EQ(Find(*rpath, "libx.so").path, "/rpath/libx.so");  // RPATH before LD_LIBRARY_PATH
}

TEST_F(LibraryResolverTest, LdSoConfIncludesBeforeDefaultDirs) {
  fs::create_directories(root_ / "etc/ld.so.conf.d");
  std::ofstream(root_ / "etc/ld.so.conf") << "include /etc/ld.so.conf.d/*.conf\n";
  std::ofstream(root_ / "etc/ld.so.conf.d/b.conf") << "# comment\n/opt/b/lib\n";
  std::ofstream(root_ / "etc/ld.so.conf.d/a.conf") << "/opt/a/lib:/opt/a2/lib\n";
  auto dirs = ReadLdSoConf(root_, "/etc/ld.so.conf");
  ASSERT_THAT(dirs, IsOk());
  EXPECT_THAT(*dirs, ElementsAre("/opt/a/lib", "/opt/a2/lib", "/opt/b/lib"));

  Lib("/opt/b/lib/liby.so", {});
  Lib("/usr/lib/liby.so", {});
  Exe("/bin/y", {.needed = {"liby.so"}});
  auto closure = ResolveClosure("/bin/y", config_);
  ASSERT_THAT(closure, IsOk());
  EXPECT_EQ(Find(*closure, "liby.so").via, FoundVia::kLdSoConf);
  EXPECT_EQ(Find(*closure, "liby.so").path, "/opt/b/lib/liby.so");

  Exe("/bin/y_nodeflib", {.needed = {"liby.so"}, .nodeflib = true});
  EXPECT_EQ(ResolveClosure("/bin/y_nodeflib", config_).status().code(),
            absl::StatusCode::kNotFound);
}

TEST_F(LibraryResolverTest, LibAndPlatformTokensAndUnknownTokensSkipped) {
  Lib("/opt/lib/x86_64-linux-gnu/x86_64/libz.so", {});
  Exe("/bin/z", {.needed = {"libz.so"}, .runpath = "/opt/$UNKNOWN:/opt/${LIB}/$PLATFORM"});
  auto closure = ResolveClosure("/bin/z", config_);
  ASSERT_THAT(closure, IsOk());
  EXPECT_EQ(Find(*closure, "libz.so").path, "/opt/lib/x86_64-linux-gnu/x86_64/libz.so");
}

TEST_F(LibraryResolverTest, SkipsLibrariesOfAnotherMachine) {
  Lib("/first/libm.so", {.machine = EM_AARCH64});
  std::ofstream(root_ / "second_not_elf.txt") << "not an ELF file";
  fs::create_directories(root_ / "second");
  fs::copy_file(root_ / "second_not_elf.txt", root_ / "second/libm.so");
  Lib("/third/libm.so", {});
  Exe("/bin/m", {.needed = {"libm.so"}, .runpath = "/first:/second:/third"});
  auto closure = ResolveClosure("/bin/m", config_);
  ASSERT_THAT(closure, IsOk());
  EXPECT_EQ(Find(*closure, "libm.so").path, "/third/libm.so");
}

TEST_F(LibraryResolverTest, ExecutableErrorsNameThePath) {
  std::ofstream(root_ / "script.sh") << "#!/bin/sh\n";
  auto closure = ResolveClosure("/script.sh", config_);
  EXPECT_EQ(closure.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(closure.status().message(), HasSubstr("script.sh: not a readable 64-bit"));
  EXPECT_EQ(ResolveClosure("/missing", config_).status().code(), absl::StatusCode::kNotFound);
}

TEST(PathWalkTest, DetectsLoopsAndKeepsRootAsCeiling) {
  ScratchDir dir;
  fs::create_symlink("b", dir.path() / "a");
  fs::create_symlink("a", dir.path() / "b");
  auto loop = WalkPath(dir.path(), "/a");
  EXPECT_EQ(loop.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(loop.status().message(), HasSubstr("more than 40 symlinks"));
  std::ofstream(dir.path() / "f") << "x";
  fs::create_symlink("/../../f", dir.path() / "up");
  auto up = WalkPath(dir.path(), "/up");
  ASSERT_THAT(up, IsOk());
  EXPECT_EQ(up->target, "/f");
}

}  // namespace
}  // namespace trainpkg::packager::bundle
