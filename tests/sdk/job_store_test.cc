#include "sdk/job_store.h"

#include <sys/stat.h>

#include "base/file_util.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/vertex/vertex_job_record.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using testing::MakeJob;
using testing::TempDir;

TEST(DefaultJobStoreHomeTest, PrefersTrainpkgHomeThenHome) {
  using Vars = std::map<std::string, std::string>;
  EXPECT_EQ(
      *DefaultJobStoreHome(base::MapEnvironment(Vars{{"TRAINPKG_HOME", "/a"}, {"HOME", "/h"}})),
      "/a");
  EXPECT_EQ(*DefaultJobStoreHome(base::MapEnvironment(Vars{{"HOME", "/h"}})), "/h/.trainpkg");
  EXPECT_EQ(DefaultJobStoreHome(base::MapEnvironment()).status().code(),
            absl::StatusCode::kFailedPrecondition);
}

mode_t ModeOf(const std::filesystem::path& path) {
  struct stat st {};
  EXPECT_EQ(::stat(path.c_str(), &st), 0) << path;
  return st.st_mode & 07777;
}

// Finding 17 of issue 16: job records hold env values such as API keys.
TEST(JobStoreTest, RecordsArePrivateWhateverTheUmask) {
  for (mode_t mask : {mode_t{022}, mode_t{0}, mode_t{0277}}) {
    TempDir dir;
    const std::filesystem::path home = dir.path() / "nested" / "home";
    JobStore store(home);
    const mode_t old = ::umask(mask);
    ASSERT_THAT(store.CreateJobDir("1"), IsOk());
    EXPECT_THAT(store.WriteJob("1", MakeJob("/bin/true", {{1, {}}})), IsOk());
    EXPECT_TRUE(store
                    .AppendHistory(
                        "1", HistoryEntry{.state = jobspec::JobState::kQueued, .time = absl::Now()})
                    .ok());
    EXPECT_THAT(store.WriteLocalDetails("1", LocalJobDetails{}), IsOk());
    EXPECT_THAT(store.RequestCancel("1"), IsOk());
    EXPECT_THAT(store.CreateJobDir("2"), IsOk());
    EXPECT_THAT(vertex::WriteVertexJobRecord(store, "2", vertex::VertexJobRecord{}), IsOk());
    const hptune::TuningJobStore tuning(home);
    EXPECT_THAT(tuning.CreateJobDir("3"), IsOk());
    EXPECT_THAT(tuning.WriteJob("3", jobspec::HyperparameterTuningJob{}), IsOk());
    ::umask(old);
    for (const std::filesystem::path& d :
         {home, home / "jobs", store.JobDir("1"), store.LogDir("1"), home / "hptuning_jobs",
          tuning.JobDir("3")}) {
      EXPECT_EQ(ModeOf(d), 0700u) << d << " umask " << mask;
    }
    for (const std::filesystem::path& f :
         {store.JobFile("1"), store.HistoryFile("1"), store.LocalFile("1"),
          store.CancelRequestFile("1"), vertex::VertexJobRecordFile(store, "2"),
          tuning.JobFile("3")}) {
      EXPECT_EQ(ModeOf(f), 0600u) << f << " umask " << mask;
    }
  }
}

TEST(JobStoreTest, AWiderHomeIsNarrowedAndANonDirectoryRefused) {
  TempDir dir;
  const std::filesystem::path home = dir.path() / "home";
  std::filesystem::create_directories(home / "jobs");
  ASSERT_EQ(::chmod(home.c_str(), 0755), 0);
  ASSERT_EQ(::chmod((home / "jobs").c_str(), 0777), 0);
  ASSERT_THAT(JobStore(home).CreateJobDir("1"), IsOk());
  EXPECT_EQ(ModeOf(home), 0700u);
  EXPECT_EQ(ModeOf(home / "jobs"), 0700u);

  ASSERT_THAT(base::WriteFileAtomic(dir.path() / "file", ""), IsOk());
  EXPECT_EQ(MakeHomePrivate(dir.path() / "file").code(), absl::StatusCode::kFailedPrecondition);
}

TEST(JobStoreTest, RoundTripsJobHistoryAndLocalDetails) {
  TempDir home;
  JobStore store(home.path());
  ASSERT_THAT(store.CreateJobDir("1700000000000123"), IsOk());
  EXPECT_EQ(store.CreateJobDir("1700000000000123").code(), absl::StatusCode::kAlreadyExists);
  EXPECT_TRUE(std::filesystem::is_directory(store.LogDir("1700000000000123")));

  jobspec::CustomJob job = MakeJob("/bin/true", {{1, {"--a"}}, {2, {}}});
  job.name = "projects/local/locations/local/customJobs/1700000000000123";
  job.state = jobspec::JobState::kFailed;
  job.create_time = absl::FromUnixMillis(1700000000000);
  job.error = jobspec::RpcStatus{.code = 3, .message = "The replica workerpool0-0 exited"};
  ASSERT_THAT(store.WriteJob("1700000000000123", job), IsOk());
  absl::StatusOr<jobspec::CustomJob> read = store.ReadJob("1700000000000123");
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read, job);

  std::vector<HistoryEntry> history = {
      {jobspec::JobState::kQueued, absl::FromUnixMillis(1700000000000)},
      {jobspec::JobState::kRunning, absl::FromUnixMillis(1700000000500)}};
  for (const HistoryEntry& entry : history) {
    ASSERT_THAT(store.AppendHistory("1700000000000123", entry), IsOk());
  }
  EXPECT_EQ(*store.ReadHistory("1700000000000123"), history);

  LocalJobDetails local;
  local.supervisor = {.pid = 42, .start_time = 777};
  local.replicas.push_back({.name = "workerpool0-0",
                            .pid = 43,
                            .pgid = 43,
                            .start_time = 778,
                            .address = "127.0.0.1:40000",
                            .argv = {"/bin/true", "--a"},
                            .container_id = "",
                            .host = "",
                            .exit_status = ExitStatus{.code = 3}});
  local.replicas.push_back({.name = "workerpool1-0",
                            .pid = 44,
                            .pgid = 44,
                            .start_time = 779,
                            .address = "127.0.0.1:40001",
                            .argv = {"/bin/true"},
                            .container_id = "trainpkg-1700000000000123-workerpool1-0",
                            .host = "",
                            .exit_status = ExitStatus{.signal = 9}});
  ReplicaDetails running;
  running.name = "workerpool1-1";
  running.pid = 45;
  running.pgid = 45;
  local.replicas.push_back(running);
  ASSERT_THAT(store.WriteLocalDetails("1700000000000123", local), IsOk());
  EXPECT_EQ(*store.ReadLocalDetails("1700000000000123"), local);

  EXPECT_FALSE(store.CancelRequested("1700000000000123"));
  ASSERT_THAT(store.RequestCancel("1700000000000123"), IsOk());
  EXPECT_TRUE(store.CancelRequested("1700000000000123"));
}

TEST(JobStoreTest, ListsOnlyJobsWithAJobFile) {
  TempDir home;
  JobStore store(home.path());
  EXPECT_TRUE(store.ListJobIds()->empty());
  ASSERT_THAT(store.CreateJobDir("b"), IsOk());
  ASSERT_THAT(store.CreateJobDir("a"), IsOk());
  ASSERT_THAT(store.CreateJobDir("half_created"), IsOk());
  ASSERT_THAT(store.WriteJob("b", MakeJob("/bin/true", {{1, {}}})), IsOk());
  ASSERT_THAT(store.WriteJob("a", MakeJob("/bin/true", {{1, {}}})), IsOk());
  EXPECT_EQ(*store.ListJobIds(), (std::vector<std::string>{"a", "b"}));
}

TEST(JobStoreTest, MissingJobIsNotFound) {
  TempDir home;
  EXPECT_EQ(JobStore(home.path()).ReadJob("nope").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace trainpkg::sdk
