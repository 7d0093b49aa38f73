// gcloud's autopackaging through the CLI, end to end: `trainpkg run
// --worker-pool-spec=...,local-package-path=DIR,...` builds an image FROM a
// Python executor (the host's python3 and Debian's pip, imported as a
// rootfs; pip finds packages only in the executor's /opt/wheels, as with an
// offline mirror: there is no PyPI here) with the package's setup.py,
// requirements.txt, an extra package, a requirement and an extra directory,
// runs 1 chief + 2 workers of it under runc, reuses it on a second run, and
// pushes it to a local docker-registry with output-image-uri and runs it
// from there.
#include <unistd.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/registry/registry_server.h"
#include "tests/test_util/file.h"
#include "tests/test_util/shell.h"

namespace trainpkg {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using testing::Sh;
using testing::ShellQuote;
using testing::ShellResult;
using testing::Slurp;
using testing::TempDir;

// The host's python3 with its stdlib, Debian's pip, setuptools and wheel
// (setup.py builds without PyPI), /bin/sh and mkdir.
constexpr char kMakeRoot[] = R"sh(set -e
root=$1
py=$(readlink -f /usr/bin/python3); ver=$(basename $py); dist=/usr/lib/python3/dist-packages
mkdir -p $root/usr/bin $root/bin $root/etc $root/tmp $root/root $root$dist $root/opt/wheels
cp $py $root/usr/bin/$ver; ln -s $ver $root/usr/bin/python3; cp -L /bin/sh $root/bin/sh
cp -L /bin/mkdir $root/bin/mkdir
echo 'root:x:0:0:root:/root:/bin/sh' > $root/etc/passwd
cp -a /usr/lib/$ver $root/usr/lib/
rm -rf $root/usr/lib/$ver/test $root/usr/lib/$ver/idlelib $root/usr/lib/$ver/tkinter \
  $root/usr/lib/$ver/config-* $root/usr/lib/$ver/dist-packages $root/usr/lib/$ver/site-packages
for m in pip setuptools pkg_resources _distutils_hack distutils-precedence.pth wheel; do
  cp -a $dist/$m $root$dist/; done
cp -a $dist/pip-*info $dist/setuptools-*info $dist/wheel-*info $root$dist/
for f in $py /bin/sh /bin/mkdir $root/usr/lib/$ver/lib-dynload/*.so; do
  for so in $(ldd $f | awk '$2 == "=>" {print $3} $1 ~ /^\// {print $1}'); do
    mkdir -p $root$(dirname $so); cp -L $so $root$so; done; done
)sh";

// A one-module distribution NAME whose NAME.WORD is WORD, as a wheel in OUT.
constexpr char kMakeWheel[] = R"sh(set -e
name=$1; word=$2; out=$3; src=$(mktemp -d)
mkdir -p $src/$name
echo "WORD = '$word'" > $src/$name/__init__.py
printf "from setuptools import setup\nsetup(name='%s', version='0.1', packages=['%s'])\n" \
  $name $name > $src/setup.py
cd $src && SETUPTOOLS_USE_DISTUTILS=stdlib /usr/bin/python3 -m pip wheel -q --no-deps \
  --no-build-isolation -w $out . 2>&1
rm -rf $src
)sh";

// The trainer: its task, rank, world size, what its dependencies and the
// extra directory say, and its arguments, printed and written to
// <argv[1]>/<task>.txt.
constexpr char kTask[] = R"py(import json, os, sys
import greet, shout
task = json.loads(os.environ["CLUSTER_SPEC"])["task"]
name = "%s-%d" % (task["type"], task["index"])
with open("data/message.txt") as f:
    message = f.read().strip()
line = "task %s rank %s world %s greet %s shout %s message %s cwd %s" % (
    name, os.environ["RANK"], os.environ["WORLD_SIZE"], greet.WORD, shout.WORD, message,
    os.getcwd())
print(line)
with open(os.path.join(sys.argv[1], name + ".txt"), "w") as out:
    out.write(line)
)py";

constexpr char kExecutor[] = "python-executor:autopkg";

class AutopackagingJobTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0 || Sh("runc --version").code != 0 || !fs::exists("/usr/bin/python3") ||
        Sh("/usr/bin/python3 -m pip --version").code != 0 ||
        Sh("/usr/bin/python3 -c 'import wheel'").code != 0) {
      return;
    }
    suite_ = new TempDir();
    const fs::path dir = suite_->path();
    ShellResult root = Sh("bash -c " + ShellQuote(kMakeRoot) + " make-root " +
                          ShellQuote((dir / "pyroot").string()) + " 2>&1");
    ASSERT_EQ(root.code, 0) << root.out;
    // greet: in the executor's wheel directory; shout: an extra package.
    fs::create_directories(dir / "pkg/deps");
    for (const auto& [name, out] :
         {std::pair{"greet", dir / "pyroot/opt/wheels"}, std::pair{"shout", dir / "pkg/deps"}}) {
      ShellResult wheel = Sh("bash -c " + ShellQuote(kMakeWheel) + " make-wheel " + name + " " +
                             name + "-word " + ShellQuote(out.string()));
      ASSERT_EQ(wheel.code, 0) << wheel.out;
    }
    ShellResult imported =
        Cli("import --change 'ENV PIP_NO_INDEX=1' --change 'ENV PIP_FIND_LINKS=/opt/wheels' " +
            ShellQuote((dir / "pyroot").string()) + " -t " + kExecutor);
    ASSERT_EQ(imported.code, 0) << imported.out;
    fs::create_directories(dir / "pkg/pytrainer");
    fs::create_directories(dir / "pkg/data");
    std::ofstream(dir / "pkg/setup.py")
        << "from setuptools import find_packages, setup\n"
           "setup(name='pytrainer', version='0.1', packages=find_packages(),\n"
           "      install_requires=['greet'])\n";
    std::ofstream(dir / "pkg/requirements.txt") << "greet==0.1\n";
    std::ofstream(dir / "pkg/pytrainer/__init__.py");
    std::ofstream(dir / "pkg/pytrainer/task.py") << kTask;
    std::ofstream(dir / "pkg/data/message.txt") << "from-extra-dir\n";
    ASSERT_EQ(registry_.Start({}), absl::OkStatus());
  }
  static void TearDownTestSuite() {
    registry_.Stop();
    delete suite_;
    suite_ = nullptr;
  }

  void SetUp() override {
    if (suite_ == nullptr) {
      GTEST_SKIP() << "needs root, runc and the host's python3 with pip and wheel";
    }
    fs::create_directories(output());
  }

  static ShellResult Cli(const std::string& args) {
    return Sh("cd " + ShellQuote(suite_->path().string()) +
              " && TRAINPKG_HOME=" + ShellQuote((suite_->path() / "home").string()) + " " +
              TRAINPKG_PATH + " " + args + " 2>&1");
  }

  fs::path output() const { return dir_.path() / "output"; }

  // `trainpkg run` of 1 chief + 2 workers from pkg/, `extra` appended to
  // the first --worker-pool-spec.
  ShellResult Run(const std::string& extra) const {
    return Cli("run --worker-pool-spec=machine-type=n1-standard-4,executor-image-uri=" +
               std::string(kExecutor) +
               ",local-package-path=pkg,python-module=pytrainer.task,requirements=shout,"
               "extra-packages=deps/shout-0.1-py3-none-any.whl,extra-dirs=data" +
               extra +
               " --worker-pool-spec=machine-type=n1-standard-4,replica-count=2 --base-output-dir=" +
               ShellQuote(output().string() + "/") + " --args=" + ShellQuote(output().string()));
  }

  void ExpectEveryReplicaRan() const {
    const std::pair<const char*, int> replicas[] = {
        {"workerpool0-0", 0}, {"workerpool1-0", 1}, {"workerpool1-1", 2}};
    for (const auto& [name, rank] : replicas) {
      EXPECT_EQ(Slurp(output() / (std::string(name) + ".txt")),
                "task " + std::string(name) + " rank " + std::to_string(rank) +
                    " world 3 greet greet-word shout shout-word message from-extra-dir cwd "
                    "/usr/app");
    }
  }

  static TempDir* suite_;
  static registry::testing::RegistryServer registry_;
  TempDir dir_;
};

TempDir* AutopackagingJobTest::suite_ = nullptr;
registry::testing::RegistryServer AutopackagingJobTest::registry_;

TEST_F(AutopackagingJobTest, BuildsOnceRunsEveryPoolAndPushesToOutputImageUri) {
  ShellResult first = Run("");
  ASSERT_EQ(first.code, 0) << first.out;
  EXPECT_THAT(first.out, HasSubstr("Building localhost/trainpkg-autopackage:"));
  EXPECT_THAT(first.out, HasSubstr("ENTRYPOINT [\"python3\",\"-m\",\"pytrainer.task\"]"));
  ExpectEveryReplicaRan();

  fs::remove_all(output());
  fs::create_directories(output());
  ShellResult second = Run("");
  ASSERT_EQ(second.code, 0) << second.out;
  EXPECT_THAT(second.out, HasSubstr("Using localhost/trainpkg-autopackage:"));
  EXPECT_THAT(second.out, Not(HasSubstr("Step ")));
  ExpectEveryReplicaRan();

  fs::remove_all(output());
  fs::create_directories(output());
  const std::string pushed = registry_.host() + "/autopkg/trainer:1";
  ShellResult third = Run(",output-image-uri=" + pushed);
  ASSERT_EQ(third.code, 0) << third.out;
  EXPECT_THAT(third.out, HasSubstr("Pushing localhost/trainpkg-autopackage:"));
  EXPECT_THAT(third.out, HasSubstr("Pushed " + pushed + "@sha256:"));
  EXPECT_THAT(third.out, Not(HasSubstr("Step ")));
  ExpectEveryReplicaRan();
  ShellResult manifest =
      Sh("curl -sf -o /dev/null -w '%{http_code}' -H 'Accept: "
         "application/vnd.oci.image.manifest.v1+json' http://" +
         registry_.host() + "/v2/autopkg/trainer/manifests/1");
  EXPECT_EQ(manifest.out, "200");
  // The replicas ran the pushed reference, pulled into the store for them.
  ShellResult images = Cli("images");
  EXPECT_THAT(images.out, HasSubstr(registry_.host() + "/autopkg/trainer"));
}

TEST_F(AutopackagingJobTest, FailedPipInstallNamesTheStepAndRunsNothing) {
  ShellResult images_before = Cli("images");
  ShellResult failed =
      Cli("run --worker-pool-spec=machine-type=n1-standard-4,executor-image-uri=" +
          std::string(kExecutor) +
          ",local-package-path=pkg,python-module=pytrainer.task,requirements=not-on-any-index");
  EXPECT_EQ(failed.code, 2) << failed.out;
  EXPECT_THAT(failed.out, HasSubstr("--worker-pool-spec #1: local-package-path=pkg: building "
                                    "the image:"));
  EXPECT_THAT(failed.out, HasSubstr("not-on-any-index"));
  EXPECT_THAT(failed.out, HasSubstr("exited with code 1"));
  EXPECT_THAT(failed.out, Not(HasSubstr("Creating CustomJob")));
  EXPECT_EQ(Cli("images").out, images_before.out) << "an image was stored";
  const fs::path staging = suite_->path() / "home/build-cache/tmp";
  EXPECT_TRUE(!fs::exists(staging) || fs::is_empty(staging)) << "a build directory was left";
  EXPECT_FALSE(
      fs::exists(suite_->path() / "home/jobs") &&
      Sh("grep -rl not-on-any-index " + ShellQuote((suite_->path() / "home/jobs").string())).code ==
          0)
      << "a job was recorded";
}

}  // namespace
}  // namespace trainpkg
