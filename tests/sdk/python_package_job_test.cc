// pythonPackageSpec on the local backend, end to end: an executor image with
// Python 3 and pip (the host's python3.11, its stdlib and Debian's pip, as
// `trainpkg import` of a rootfs), a trainer wheel and sdist built here with the host's
// python3, jobs that install it once and run `python3 -m` on every replica
// under runc, and the bad inputs that must fail before anything runs.
#include <unistd.h>

#include <chrono>
#include <fstream>
#include <optional>

#include "base/environment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job.h"
#include "packager/builder/image_store.h"
#include "sdk/custom_job.h"
#include "sdk/image_builder.h"
#include "sdk/job_client.h"
#include "sdk/job_logs.h"
#include "tests/test_util/file.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::Not;
using trainpkg::testing::Sh;
using trainpkg::testing::ShellQuote;
using trainpkg::testing::ShellResult;
using trainpkg::testing::Slurp;
using trainpkg::testing::TempDir;

constexpr char kExecutor[] = "python-executor:test";
constexpr char kNoPython[] = "busybox-executor:test";
constexpr char kDerivedRepository[] = "localhost/trainpkg-python-package";

// A root filesystem with the host's python3 and what it links, its stdlib
// and Debian's pip and setuptools, /bin/sh and an /etc/passwd.
constexpr char kMakeRoot[] = R"sh(set -e
root=$1
py=$(readlink -f /usr/bin/python3); ver=$(basename $py); dist=/usr/lib/python3/dist-packages
mkdir -p $root/usr/bin $root/bin $root/etc $root/tmp $root/root $root$dist
cp $py $root/usr/bin/$ver; ln -s $ver $root/usr/bin/python3; cp -L /bin/sh $root/bin/sh
echo 'root:x:0:0:root:/root:/bin/sh' > $root/etc/passwd
cp -a /usr/lib/$ver $root/usr/lib/
rm -rf $root/usr/lib/$ver/test $root/usr/lib/$ver/idlelib $root/usr/lib/$ver/tkinter \
  $root/usr/lib/$ver/config-* $root/usr/lib/$ver/dist-packages $root/usr/lib/$ver/site-packages
for m in pip setuptools pkg_resources _distutils_hack distutils-precedence.pth; do
  cp -a $dist/$m $root$dist/; done
cp -a $dist/pip-*info $dist/setuptools-*info $root$dist/  # setup.py's commands are entry points
for f in $py /bin/sh $root/usr/lib/$ver/lib-dynload/*.so; do
  for so in $(ldd $f | awk '$2 == "=>" {print $3} $1 ~ /^\// {print $1}'); do
    mkdir -p $root$(dirname $so); cp -L $so $root$so; done; done
)sh";

// The trainer: prints its task, rank and world size, and writes them to
// <argv[1]>/<task>.txt; pytrainer.broken fails on import.
constexpr char kTask[] = R"py(import json, os, sys
task = json.loads(os.environ["CLUSTER_SPEC"])["task"]
name = "%s-%d" % (task["type"], task["index"])
line = "task %s rank %s world %s greeting %s" % (
    name, os.environ["RANK"], os.environ["WORLD_SIZE"], os.environ.get("GREETING"))
print(line)
with open(os.path.join(sys.argv[1], name + ".txt"), "w") as out:
    out.write(line)
)py";

class PythonPackageJobTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (::geteuid() != 0 || Sh("runc --version").code != 0 || !fs::exists("/usr/bin/python3") ||
        Sh("/usr/bin/python3 -m pip --version").code != 0) {
      return;
    }
    suite_ = new TempDir();
    const fs::path dir = suite_->path();
    ShellResult root = Sh("bash -c " + ShellQuote(kMakeRoot) + " make-root " +
                          ShellQuote((dir / "pyroot").string()) + " 2>&1");
    ASSERT_EQ(root.code, 0) << root.out;
    fs::create_directories(dir / "bbroot/bin");
    fs::copy_file("/bin/busybox", dir / "bbroot/bin/busybox");
    for (const auto& [source, tag] : {std::pair{"pyroot", kExecutor}, {"bbroot", kNoPython}}) {
      base::MapEnvironment env({{"TRAINPKG_HOME", (dir / "home").string()}});
      ImageBuildOptions options;
      options.import = ImportOptions{.source = dir / source, .changes = {}, .platform = ""};
      options.tags = {tag};
      options.environment = &env;
      absl::StatusOr<BuiltImage> image = BuildImage(options);
      ASSERT_THAT(image, IsOk());
    }
    fs::create_directories(dir / "pkg/pytrainer");
    std::ofstream(dir / "pkg/setup.py")
        << "from setuptools import setup\n"
           "setup(name='pytrainer', version='0.1', packages=['pytrainer'])\n";
    std::ofstream(dir / "pkg/pytrainer/__init__.py");
    std::ofstream(dir / "pkg/pytrainer/task.py") << kTask;
    std::ofstream(dir / "pkg/pytrainer/broken.py") << "import not_a_dependency_anyone_has\n";
    ShellResult wheel = Sh("cd " + ShellQuote((dir / "pkg").string()) +
                           " && SETUPTOOLS_USE_DISTUTILS=stdlib /usr/bin/python3 -m pip wheel -q "
                           "--no-deps --no-build-isolation -w dist . 2>&1 && "
                           "SETUPTOOLS_USE_DISTUTILS=stdlib /usr/bin/python3 setup.py -q sdist "
                           "-d dist 2>&1");
    ASSERT_EQ(wheel.code, 0) << wheel.out;
  }
  static void TearDownTestSuite() {
    delete suite_;
    suite_ = nullptr;
  }

  void SetUp() override {
    if (suite_ == nullptr) GTEST_SKIP() << "needs root, runc and the host's python3 with pip";
    fs::create_directories(output());
  }

  static fs::path home() { return suite_->path() / "home"; }
  static fs::path wheel() { return suite_->path() / "pkg/dist/pytrainer-0.1-py3-none-any.whl"; }
  static fs::path sdist() { return suite_->path() / "pkg/dist/pytrainer-0.1.tar.gz"; }
  fs::path output() const { return dir_.path() / "output"; }

  // Pools of `counts` replicas running `module` of `packages` on `executor`.
  jobspec::CustomJob MakeJob(const std::string& executor, std::vector<std::string> packages,
                             const std::string& module, const std::vector<int>& counts) const {
    jobspec::CustomJob job;
    job.display_name = "python-package-test";
    job.job_spec.base_output_directory = output().string() + "/";
    for (int count : counts) {
      jobspec::WorkerPoolSpec pool;
      pool.replica_count = count;
      pool.machine_spec.emplace().machine_type = "n1-standard-4";
      jobspec::PythonPackageSpec& python = pool.python_package_spec.emplace();
      python.executor_image_uri = executor;
      python.package_uris = packages;
      python.python_module = module;
      python.args = {output().string()};
      python.env = {{"GREETING", "hello"}};
      job.job_spec.worker_pool_specs.push_back(std::move(pool));
    }
    return job;
  }

  CustomJobOptions Options() {
    CustomJobOptions options;
    options.home = home();
    options.log_stream = &log_;
    options.environment = base::SnapshotProcessEnvironment();
    options.environment->erase("CUDA_VISIBLE_DEVICES");
    options.cancel_grace_period = absl::Seconds(1);
    return options;
  }

  absl::StatusOr<jobspec::CustomJob> RunJob(const jobspec::CustomJob& spec) {
    log_.str("");
    absl::StatusOr<CustomJob> job = CustomJob::Create(spec, Options());
    if (!job.ok()) return job.status();
    job_id_ = job->job_id();
    job_dir_ = job->job_dir();
    return job->Run();
  }

  // The store's tags of installed-package images.
  static std::vector<std::string> DerivedTags() {
    std::vector<std::string> tags;
    absl::StatusOr<packager::builder::ImageStore> store =
        packager::builder::ImageStore::Open(home() / "images");
    EXPECT_THAT(store, IsOk());
    if (!store.ok()) return tags;
    absl::StatusOr<std::vector<packager::builder::StoredImage>> images = store->List();
    EXPECT_THAT(images, IsOk());
    for (const packager::builder::StoredImage& image : *images) {
      if (image.repository == kDerivedRepository)
        tags.push_back(image.repository + ":" + image.tag);
    }
    return tags;
  }

  static size_t Entries(const fs::path& dir) {
    std::error_code ec;
    size_t n = 0;
    for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); ++it) {
      ++n;
    }
    return n;
  }

  // A bad input: `spec` fails with `code` naming `field` before anything
  // is recorded, built or started.
  void ExpectRefused(const jobspec::CustomJob& spec, absl::StatusCode code,
                     const std::string& field, const std::string& why) {
    const size_t jobs = Entries(home() / "jobs");
    const std::vector<std::string> tags = DerivedTags();
    absl::StatusOr<jobspec::CustomJob> done = RunJob(spec);
    ASSERT_FALSE(done.ok()) << "ran: " << log_.str();
    EXPECT_EQ(done.status().code(), code) << done.status();
    EXPECT_THAT(done.status().message(), HasSubstr(field));
    EXPECT_THAT(done.status().message(), HasSubstr(why));
    EXPECT_EQ(Entries(home() / "jobs"), jobs) << "a job was recorded";
    EXPECT_EQ(DerivedTags(), tags) << "an image was stored";
    EXPECT_EQ(Entries(home() / "build-cache/tmp"), 0u) << "a build context was left";
    EXPECT_TRUE(fs::is_empty(output())) << "a replica ran";
  }

  static TempDir* suite_;
  TempDir dir_;
  std::ostringstream log_;
  std::string job_id_;
  fs::path job_dir_;
};

TempDir* PythonPackageJobTest::suite_ = nullptr;

// 1 chief + 2 workers run the module of the installed wheel with the cluster
// env and pythonPackageSpec.env; a second job with the same executor and
// package reuses the image instead of building it again.
TEST_F(PythonPackageJobTest, EveryReplicaRunsTheModuleOfThePackagesInstalledOnce) {
  const jobspec::CustomJob spec =
      MakeJob(kExecutor, {"file://" + wheel().string()}, "pytrainer.task", {1, 2});
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<jobspec::CustomJob> done = RunJob(spec);
  const auto first = std::chrono::steady_clock::now() - start;
  ASSERT_THAT(done, IsOk()) << done.status() << log_.str();
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded) << done->error->message << log_.str();
  EXPECT_THAT(log_.str(),
              HasSubstr("Installing the Python packages of jobSpec.workerPoolSpecs[0]"));
  EXPECT_THAT(log_.str(), HasSubstr("Successfully installed pytrainer-0.1"));
  EXPECT_EQ(Slurp(output() / "workerpool0-0.txt"),
            "task workerpool0-0 rank 0 world 3 greeting hello");
  EXPECT_EQ(Slurp(output() / "workerpool1-0.txt"),
            "task workerpool1-0 rank 1 world 3 greeting hello");
  EXPECT_EQ(Slurp(output() / "workerpool1-1.txt"),
            "task workerpool1-1 rank 2 world 3 greeting hello");
  const std::vector<std::string> tags = DerivedTags();
  ASSERT_EQ(tags.size(), 1u);
  EXPECT_TRUE(!fs::exists(job_dir_ / "containers") || fs::is_empty(job_dir_ / "containers"));

  fs::remove_all(output());
  fs::create_directories(output());
  start = std::chrono::steady_clock::now();
  done = RunJob(spec);
  const auto second = std::chrono::steady_clock::now() - start;
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded) << done->error->message << log_.str();
  EXPECT_THAT(log_.str(), HasSubstr("Using " + tags[0]));
  EXPECT_THAT(log_.str(), Not(HasSubstr("Installing the Python packages")));
  EXPECT_EQ(DerivedTags(), tags);
  EXPECT_TRUE(fs::exists(output() / "workerpool1-1.txt"));
  std::cerr << "first job (install + run) "
            << std::chrono::duration_cast<std::chrono::milliseconds>(first).count()
            << " ms, second (cached image) "
            << std::chrono::duration_cast<std::chrono::milliseconds>(second).count() << " ms\n";
}

// An sdist (a relative path here) is built and installed by pip in the
// executor.
TEST_F(PythonPackageJobTest, AnSdistIsInstalledAsWell) {
  const fs::path cwd = fs::current_path();
  fs::current_path(sdist().parent_path());
  absl::StatusOr<jobspec::CustomJob> done =
      RunJob(MakeJob(kExecutor, {sdist().filename().string()}, "pytrainer.task", {1}));
  fs::current_path(cwd);
  ASSERT_THAT(done, IsOk()) << done.status() << log_.str();
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded) << done->error->message << log_.str();
  EXPECT_THAT(log_.str(), HasSubstr("Successfully installed pytrainer-0.1"));
  EXPECT_EQ(Slurp(output() / "workerpool0-0.txt"),
            "task workerpool0-0 rank 0 world 1 greeting hello");
}

TEST_F(PythonPackageJobTest, AnExecutorWithoutPython3IsRefused) {
  ExpectRefused(MakeJob(kNoPython, {wheel().string()}, "pytrainer.task", {1}),
                absl::StatusCode::kFailedPrecondition,
                "jobSpec.workerPoolSpecs[0].pythonPackageSpec.executorImageUri",
                "has no python3 on its PATH");
}

TEST_F(PythonPackageJobTest, AMissingOrUnknownPackageIsRefused) {
  ExpectRefused(MakeJob(kExecutor, {wheel().string(), (dir_.path() / "gone-0.1.tar.gz").string()},
                        "pytrainer.task", {1}),
                absl::StatusCode::kNotFound,
                "jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris[1]",
                "gone-0.1.tar.gz does not exist");
  std::ofstream(dir_.path() / "requirements.txt") << "numpy\n";
  ExpectRefused(
      MakeJob(kExecutor, {(dir_.path() / "requirements.txt").string()}, "pytrainer.task", {1}),
      absl::StatusCode::kInvalidArgument,
      "jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris[0]", "is not a Python package");
}

// pip refuses a wheel without metadata: the error names the pool, the RUN
// step, pip's exit code and the end of its output; no image is kept.
TEST_F(PythonPackageJobTest, AFailingPipInstallNamesTheStepExitCodeAndOutput) {
  const fs::path bad = dir_.path() / "bad-0.1-py3-none-any.whl";
  ShellResult zip = Sh("cd " + ShellQuote(dir_.path().string()) +
                       " && /usr/bin/python3 -c \"import zipfile; zipfile.ZipFile('" +
                       bad.filename().string() + "', 'w').writestr('bad/__init__.py', '')\"");
  ASSERT_EQ(zip.code, 0) << zip.out;
  ExpectRefused(MakeJob(kExecutor, {bad.string()}, "bad", {1}), absl::StatusCode::kAborted,
                "jobSpec.workerPoolSpecs[0].pythonPackageSpec: installing the packages",
                "exited with code 1");
  absl::StatusOr<jobspec::CustomJob> again = RunJob(MakeJob(kExecutor, {bad.string()}, "bad", {1}));
  ASSERT_FALSE(again.ok());
  EXPECT_THAT(again.status().message(), HasSubstr("RUN"));
  EXPECT_THAT(again.status().message(), HasSubstr(".dist-info directory not found"));
}

// A module that fails on import: the replica FAILS, the job's error names
// it, and its log holds Python's traceback.
TEST_F(PythonPackageJobTest, AModuleThatDoesNotImportFailsItsReplicaWithTheTraceback) {
  absl::StatusOr<jobspec::CustomJob> done =
      RunJob(MakeJob(kExecutor, {wheel().string()}, "pytrainer.broken", {1, 1}));
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kFailed) << log_.str();
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message, HasSubstr("The replica workerpool"));
  EXPECT_THAT(done->error->message, HasSubstr("exited with a non-zero status of 1"));
  std::ostringstream logs;
  ASSERT_THAT(WriteJobLogs(JobClient(JobStore(home())), job_id_, {}, logs), IsOk());
  EXPECT_THAT(logs.str(), HasSubstr("Traceback (most recent call last)"));
  EXPECT_THAT(logs.str(),
              HasSubstr("ModuleNotFoundError: No module named 'not_a_dependency_anyone_has'"));
}

}  // namespace
}  // namespace trainpkg::sdk
