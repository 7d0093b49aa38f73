// CustomJob against a fake process launcher: the state machine, the
// environment handed to replicas and the SDK's log lines, without processes.
#include "sdk/custom_job.h"

#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <mutex>
#include <optional>
#include <set>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "tests/sdk/job_outcome.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using testing::CreateAndRun;
using testing::ExpectJobFailed;
using ::testing::HasSubstr;
using testing::MakeJob;
using testing::TempDir;

// Exits with `status` right away, or, when `serve` is set, runs until
// signalled. Writes one line of output.
class FakeProcess final : public Process {
 public:
  FakeProcess(int pid, ExitStatus status, bool serve) : pid_(pid), status_(status), serve_(serve) {
    int fds[2];
    if (::pipe(fds) != 0) std::abort();
    read_fd_ = fds[0];
    std::string line = "output of " + std::to_string(pid) + "\n";
    (void)!::write(fds[1], line.data(), line.size());
    ::close(fds[1]);
  }
  ~FakeProcess() override { ::close(read_fd_); }

  int pid() const override { return pid_; }
  int output_fd() const override { return read_fd_; }
  ExitStatus Wait() override {
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait(lock, [this] { return !serve_; });
    return status_;
  }
  std::optional<ExitStatus> TryWait() override {
    std::lock_guard<std::mutex> lock(mu_);
    if (serve_) return std::nullopt;
    return status_;
  }
  void SignalGroup(int signal) override {
    std::lock_guard<std::mutex> lock(mu_);
    signals_.push_back(signal);
    if (serve_) {
      serve_ = false;
      status_ = ExitStatus{.signal = signal};
      cv_.notify_all();
    }
  }

 private:
  const int pid_;
  int read_fd_ = -1;
  std::mutex mu_;
  std::condition_variable cv_;
  ExitStatus status_;
  bool serve_;
  std::vector<int> signals_;
};

class FakeLauncher final : public ProcessLauncher {
 public:
  absl::StatusOr<std::unique_ptr<Process>> Start(const ProcessSpec& spec) override {
    std::lock_guard<std::mutex> lock(mu_);
    specs.push_back(spec);
    if (spec.name == fail_to_start) return absl::NotFoundError("executing: no such file");
    ExitStatus status = exit_status.contains(spec.name) ? exit_status[spec.name] : ExitStatus{};
    return std::make_unique<FakeProcess>(1000000 + static_cast<int>(specs.size()), status,
                                         serving.contains(spec.name));
  }

  std::mutex mu_;
  std::vector<ProcessSpec> specs;
  std::map<std::string, ExitStatus> exit_status;
  std::set<std::string> serving;
  std::string fail_to_start;
};

class CustomJobTest : public ::testing::Test {
 protected:
  CustomJobOptions Options() {
    CustomJobOptions options;
    options.home = home_.path();
    options.log_stream = &log_;
    options.environment =
        std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}, {"INHERITED", "yes"}};
    options.launcher = launcher_;
    options.cancel_grace_period = absl::Seconds(1);
    return options;
  }

  TempDir home_;
  std::ostringstream log_;
  std::shared_ptr<FakeLauncher> launcher_ = std::make_shared<FakeLauncher>();
};

TEST_F(CustomJobTest, SucceedsAndHandsEachReplicaTheVertexEnvironment) {
  jobspec::CustomJob spec = MakeJob("/bin/true", {{1, {"--chief"}}, {2, {}}});
  spec.job_spec.worker_pool_specs[0].container_spec->env = {{"MODEL", "$(AIP_MODEL_DIR)best"},
                                                            {"LITERAL", "$$(AIP_MODEL_DIR)"}};
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
  EXPECT_FALSE(done->error.has_value());
  EXPECT_TRUE(done->create_time.has_value() && done->start_time.has_value() &&
              done->end_time.has_value());
  std::string output_dir = (job->job_dir() / "output/").string();
  EXPECT_EQ(done->job_spec.base_output_directory, output_dir);

  ASSERT_EQ(launcher_->specs.size(), 3u);
  const ProcessSpec& chief = launcher_->specs[0];
  EXPECT_EQ(chief.name, "workerpool0-0");
  EXPECT_EQ(chief.argv, (std::vector<std::string>{"/bin/true", "--chief"}));
  EXPECT_EQ(chief.env.at("INHERITED"), "yes");
  EXPECT_EQ(chief.env.at("CLOUD_ML_JOB_ID"), job->job_id());
  EXPECT_EQ(chief.env.at("AIP_MODEL_DIR"), output_dir + "model/");
  EXPECT_EQ(chief.env.at("MODEL"), output_dir + "model/best");
  EXPECT_EQ(chief.env.at("LITERAL"), "$(AIP_MODEL_DIR)");
  absl::StatusOr<jobspec::ClusterSpecEnv> cluster =
      jobspec::ParseClusterSpec(launcher_->specs[2].env.at("CLUSTER_SPEC"));
  ASSERT_THAT(cluster, IsOk());
  EXPECT_EQ(cluster->task_type, "workerpool1");
  EXPECT_EQ(cluster->task_index, 1);
  EXPECT_EQ(cluster->cluster.at("workerpool1").size(), 2u);

  std::string log = log_.str();
  EXPECT_THAT(log, HasSubstr("Creating CustomJob\n"));
  EXPECT_THAT(log, HasSubstr("CustomJob created. Resource name: projects/local/locations/local/"
                             "customJobs/" +
                             job->job_id() + "\n"));
  EXPECT_THAT(
      log, HasSubstr("CustomJob " + job->resource_name() + " current state:\nJOB_STATE_RUNNING\n"));
  EXPECT_THAT(log, HasSubstr("[workerpool1-1] output of"));
  EXPECT_THAT(log, HasSubstr("CustomJob run completed. Resource name: " + job->resource_name()));
}

TEST_F(CustomJobTest, IdsAreNumericAndResourceNamesVertexLike) {
  absl::StatusOr<CustomJob> job = CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), Options());
  ASSERT_THAT(job, IsOk());
  EXPECT_THAT(job->job_id(), ::testing::MatchesRegex("[0-9]{16}"));
  EXPECT_EQ(job->resource_name(), "projects/local/locations/local/customJobs/" + job->job_id());
  EXPECT_EQ(job->job_dir(), home_.path() / "jobs" / job->job_id());
}

TEST_F(CustomJobTest, ParameterServersAreStoppedWhenTheOthersSucceed) {
  launcher_->serving = {"workerpool2-0"};
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(MakeJob("/bin/true", {{1, {}}, {0, {}}, {1, {}}}), Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded);
}

TEST_F(CustomJobTest, ReplicaThatCannotStartFailsTheJobByName) {
  launcher_->fail_to_start = "workerpool1-0";
  launcher_->serving = {"workerpool0-0"};
  ExpectJobFailed(CreateAndRun(MakeJob("/bin/true", {{1, {}}, {1, {}}}), Options()), 3,
                  HasSubstr("The replica workerpool1-0 could not be started"));
}

TEST_F(CustomJobTest, SignalledReplicaFailsTheJob) {
  launcher_->exit_status["workerpool0-0"] = ExitStatus{.signal = SIGKILL};
  absl::StatusOr<CustomJob> job = CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  EXPECT_THAT(done->error->message,
              HasSubstr("The replica workerpool0-0 was terminated by signal 9 (Killed). To find "
                        "out more about why your job exited please check the logs: " +
                        (job->job_dir() / "logs" / "workerpool0-0.log").string()));
  EXPECT_THAT(log_.str(), HasSubstr("Job failed with:\ncode: 3\n"));
}

TEST_F(CustomJobTest, InvalidJobsFailBeforeAnythingRuns) {
  jobspec::CustomJob spec = MakeJob("/bin/true", {{2, {}}});  // the chief pool needs 1 replica
  absl::Status status = CustomJob::Create(spec, Options()).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("workerPoolSpecs[0].replicaCount"));

  spec = MakeJob("/bin/true", {{1, {}}});
  spec.job_spec.worker_pool_specs[0].container_spec->image_uri = "local:";
  EXPECT_EQ(CustomJob::Create(spec, Options()).status().code(), absl::StatusCode::kInvalidArgument);

  CustomJobOptions options = Options();
  options.job_id = "9-not-valid";
  EXPECT_EQ(CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), options).status().code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_TRUE(launcher_->specs.empty());
  EXPECT_FALSE(std::filesystem::exists(home_.path() / "jobs"));
}

TEST_F(CustomJobTest, MissingExecutableIsAnErrorAtSubmit) {
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(MakeJob("/nonexistent/trainer", {{1, {}}}), Options());
  ASSERT_THAT(job, IsOk());
  absl::Status status = job->Submit();
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(), HasSubstr("/nonexistent/trainer"));
  EXPECT_FALSE(std::filesystem::exists(job->job_dir()));
  EXPECT_EQ(job->Wait().status().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(CustomJobTest, TakenJobIdIsAlreadyExists) {
  CustomJobOptions options = Options();
  options.job_id = "my_job";
  absl::StatusOr<CustomJob> first = CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), options);
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(first->Run(), IsOk());
  absl::StatusOr<CustomJob> second = CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), options);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(second->Submit().code(), absl::StatusCode::kAlreadyExists);
  EXPECT_EQ(first->Submit().code(), absl::StatusCode::kFailedPrecondition);
}

TEST_F(CustomJobTest, CancelStopsServingReplicas) {
  launcher_->serving = {"workerpool0-0"};
  absl::StatusOr<CustomJob> job = CustomJob::Create(MakeJob("/bin/true", {{1, {}}}), Options());
  ASSERT_THAT(job, IsOk());
  ASSERT_THAT(job->Submit(), IsOk());
  ASSERT_TRUE(testing::WaitFor([&] { return job->job().state == jobspec::JobState::kRunning; },
                               absl::Seconds(10)));
  job->Cancel();
  job->Cancel();
  absl::StatusOr<jobspec::CustomJob> done = job->Wait();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kCancelled);
  EXPECT_EQ(done->error, (jobspec::RpcStatus{.code = 1, .message = "CANCELLED"}));
  EXPECT_THAT(log_.str(), HasSubstr("Cancelling CustomJob run: " + job->resource_name()));
  EXPECT_THAT(log_.str(), HasSubstr("JOB_STATE_CANCELLING"));
}

}  // namespace
}  // namespace trainpkg::sdk
