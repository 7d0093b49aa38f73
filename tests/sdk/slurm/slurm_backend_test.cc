// The Slurm backend against a real single-host Slurm (slurm_cluster.h):
// the digits sample as 1 chief + 2 workers to SUCCEEDED, cancel leaving no
// Slurm job, and a failing replica failing the job by name; the same
// through salloc (SlurmSubmit::kSalloc); a tuning job's trials as Slurm jobs.
#include <signal.h>

#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "base/environment.h"
#include "base/file_util.h"
#include "base/subprocess.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/cluster_env.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/job_file.h"
#include "nlohmann/json.hpp"
#include "sdk/custom_job.h"
#include "sdk/hptune/hyperparameter_tuning_job.h"
#include "sdk/job_client.h"
#include "sdk/job_logs.h"
#include "tests/sdk/hptune/timeline_study.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/slurm/slurm_cluster.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;

class SlurmBackendTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (std::string missing = testing::SlurmCluster::MissingBinaries(); !missing.empty()) {
      GTEST_SKIP() << "Slurm is not installed (missing: " << missing
                   << "); apt-get install slurm-wlm munge";
    }
    absl::Status started = cluster_.Start();
    ASSERT_THAT(started, IsOk());
  }

  CustomJobOptions Options() {
    CustomJobOptions options;
    options.backend = JobBackendKind::kSlurm;
    options.home = home_.path() / "home";
    options.log_stream = &output_;
    options.cancel_grace_period = absl::Seconds(3);
    options.slurm.task_program = SLURM_TASK_PATH;
    options.slurm.rendezvous_timeout = absl::Seconds(60);
    options.slurm.poll_interval = absl::Milliseconds(100);
    std::map<std::string, std::string> environment = base::SnapshotProcessEnvironment();
    // A launcher above this test may have set these; they are not the job's.
    for (const char* name : {"TF_CONFIG", "CLUSTER_SPEC", "RANK", "WORLD_SIZE", "MASTER_ADDR",
                             "MASTER_PORT", "SLURM_PROCID", "SLURM_JOB_ID", "AIP_MODEL_DIR", "AIP_CHECKPOINT_DIR", "AIP_TENSORBOARD_LOG_DIR"}) {
      environment.erase(name);
    }
    environment["TRAINPKG_DATA_DIR"] = DIGITS_DATA_DIR;
    options.environment = environment;
    return options;
  }

  // Lines squeue prints for every job the cluster still has.
  std::string Queue() {
    absl::StatusOr<std::string> queue = cluster_.Run({"squeue", "-h", "-o", "%i %T"});
    return queue.ok() ? *queue : std::string(queue.status().message());
  }

  // A chief and two workers that sleep, each writing its pid into `pids`.
  static jobspec::CustomJob SleepingJob(const std::filesystem::path& pids) {
    const std::string pid_dir = "--pid-dir=" + pids.string();
    return testing::MakeJob(testing::ReplicaProbePath(),
                            {{1, {pid_dir, "--sleep=120"}}, {2, {pid_dir, "--sleep=120"}}});
  }

  // Submits `spec` (SleepingJob's replicas), cancels it once all three run,
  // and checks that it ends cancelled with no Slurm job and no replica left.
  void CancelOnceRunning(const jobspec::CustomJob& spec, const CustomJobOptions& options,
                         const std::filesystem::path& pids) {
    absl::StatusOr<CustomJob> job = CustomJob::Create(spec, options);
    ASSERT_THAT(job, IsOk());
    ASSERT_THAT(job->Submit(), IsOk());
    ASSERT_TRUE(testing::WaitFor([&] { return testing::PidsInDir(pids, "replica-").size() == 3; },
                                 absl::Seconds(45)))
        << output_.str() << Queue() << cluster_.Logs();
    job->Cancel();
    absl::StatusOr<jobspec::CustomJob> done = job->Wait();
    ASSERT_THAT(done, IsOk());
    EXPECT_EQ(done->state, jobspec::JobState::kCancelled) << output_.str();
    EXPECT_EQ(Queue(), "");
    for (int pid : testing::PidsInDir(pids, "replica-")) {
      EXPECT_TRUE(testing::WaitFor([&] { return testing::ProcessGone(pid); }, absl::Seconds(10)))
          << "replica pid " << pid;
    }
  }

  testing::SlurmCluster cluster_;
  testing::TempDir home_;
  std::ostringstream output_;
};

TEST_F(SlurmBackendTest, DigitsChiefAndTwoWorkersSucceed) {
  absl::StatusOr<jobspec::CustomJob> spec =
      jobspec::LoadJobFile(std::string(DIGITS_SAMPLE_SOURCE_DIR) + "/job.yaml");
  ASSERT_THAT(spec, IsOk());
  for (jobspec::WorkerPoolSpec& pool : spec->job_spec.worker_pool_specs) {
    pool.container_spec->image_uri = std::string("local:") + DIGITS_SAMPLE;
    pool.container_spec->args = {"--epochs=2", "--global_batch_size=64", "--learning_rate=0.001"};
  }
  spec->job_spec.base_output_directory = (home_.path() / "out").string();
  absl::StatusOr<CustomJob> job = CustomJob::Create(*spec, Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "") << "\n"
      << output_.str() << cluster_.Logs();

  // Every replica found its role; the chief saved the model.
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool0-0] task=chief:0 rank=0 world_size=3"));
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool1-1] task=worker:1 rank=2 world_size=3"));
  EXPECT_THAT(output_.str(), HasSubstr("JOB_STATE_RUNNING"));
  EXPECT_TRUE(std::filesystem::exists(home_.path() / "out" / "model"));
  // Both pools ask for n1-standard-4 tasks: one plain job.
  absl::StatusOr<std::string> script = base::ReadFile(job->job_dir() / "slurm" / "batch.sh");
  EXPECT_THAT(script.value_or(""), ::testing::Not(HasSubstr("hetjob")));

  // `trainpkg jobs logs` reads what srun wrote; local.json has the addresses.
  JobClient client(JobStore(home_.path() / "home"));
  std::ostringstream logs;
  ASSERT_THAT(WriteJobLogs(client, job->job_id(), {.replica = "workerpool1-0"}, logs), IsOk());
  EXPECT_THAT(logs.str(), HasSubstr("task=worker:0 rank=1 world_size=3"));
  absl::StatusOr<JobInfo> info = client.GetJob(job->job_id());
  ASSERT_THAT(info, IsOk());
  ASSERT_EQ(info->local.replicas.size(), 3u);
  for (const ReplicaDetails& replica : info->local.replicas) {
    EXPECT_THAT(replica.address, ::testing::StartsWith("127.0.0.1:")) << replica.name;
    ASSERT_TRUE(replica.exit_status.has_value()) << replica.name;
    EXPECT_TRUE(replica.exit_status->ok()) << replica.name;
  }
  EXPECT_EQ(Queue(), "");
}

TEST_F(SlurmBackendTest, PyTorchVariablesNameTheChiefsNodeAndAPortOfItsOwn) {
  const std::filesystem::path dump = home_.path() / "env";
  std::filesystem::create_directories(dump);
  const std::vector<std::string> args = {"--dump-env=" + dump.string()};
  absl::StatusOr<CustomJob> job =
      CustomJob::Create(testing::MakeJob(testing::ReplicaProbePath(), {{1, args}, {2, args}}),
                        Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded) << output_.str() << cluster_.Logs();

  std::set<std::string> ranks;
  for (const auto& entry : std::filesystem::directory_iterator(dump)) {
    nlohmann::json vars = nlohmann::json::parse(base::ReadFile(entry.path()).value_or("{}"));
    absl::StatusOr<jobspec::ClusterSpecEnv> cluster =
        jobspec::ParseClusterSpec(vars.value("CLUSTER_SPEC", ""));
    ASSERT_THAT(cluster, IsOk());
    const std::string chief = cluster->cluster.at("workerpool0").at(0);
    const std::string chief_host = chief.substr(0, chief.rfind(':'));
    SCOPED_TRACE(cluster->task_type + "-" + std::to_string(cluster->task_index));
    EXPECT_EQ(vars.value("MASTER_ADDR", ""), chief_host);
    EXPECT_NE(vars.value("MASTER_PORT", ""), "");
    EXPECT_NE(chief_host + ":" + vars.value("MASTER_PORT", ""), chief)
        << "MASTER_PORT is not the chief's cluster port";
    EXPECT_EQ(vars.value("WORLD_SIZE", ""), "3");
    ranks.insert(vars.value("RANK", ""));
    EXPECT_EQ(vars.value("RANK", ""),
              std::to_string(cluster->task_type == "workerpool0" ? 0 : cluster->task_index + 1));
  }
  EXPECT_EQ(ranks, (std::set<std::string>{"0", "1", "2"}));
}

TEST_F(SlurmBackendTest, CancelLeavesNoSlurmJob) {
  const testing::TempDir pids;
  jobspec::CustomJob spec = SleepingJob(pids.path());
  spec.job_spec.worker_pool_specs[1].machine_spec->machine_type = "n1-standard-2";  // het job
  CancelOnceRunning(spec, Options(), pids.path());
}

// 1 chief + 2 workers where worker 1 fails at once and the others would run
// for a minute. Smaller workers make the job heterogeneous (chief on one
// node, workers on the other).
jobspec::CustomJob JobWhoseWorkerOneFails() {
  jobspec::CustomJob spec =
      testing::MakeJob(testing::ReplicaProbePath(), {{1, {"--sleep=60"}}, {2, {"--sleep=60"}}});
  spec.job_spec.worker_pool_specs[1].machine_spec->machine_type = "n1-standard-2";
  jobspec::ContainerSpec& workers = *spec.job_spec.worker_pool_specs[1].container_spec;
  workers.command = {"/bin/sh", "-c",
                     "if [ \"$SLURM_PROCID\" = 1 ]; then echo worker one fails >&2; exit 3; fi; "
                     "exec \"$0\" --sleep=60",
                     testing::ReplicaProbePath()};
  workers.args.clear();
  return spec;
}

TEST_F(SlurmBackendTest, FailingReplicaFailsTheJobNamingIt) {
  absl::StatusOr<CustomJob> job = CustomJob::Create(JobWhoseWorkerOneFails(), Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed) << output_.str();
  ASSERT_TRUE(done->error.has_value());
  EXPECT_EQ(done->error->code, 3);
  EXPECT_THAT(done->error->message,
              HasSubstr("The replica workerpool1-1 exited with a non-zero status of 3"));
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool1-1] worker one fails"));
  EXPECT_EQ(Queue(), "");
  absl::StatusOr<std::string> script = base::ReadFile(job->job_dir() / "slurm" / "batch.sh");
  EXPECT_THAT(script.value_or(""), HasSubstr("#SBATCH hetjob"));
}

TEST_F(SlurmBackendTest, ParameterServersAreStoppedWhenTheOthersSucceed) {
  // Chief and worker exit at once; the parameter server would serve for two
  // minutes and is stopped by the batch script, without failing the job.
  jobspec::CustomJob spec = testing::MakeJob(
      testing::ReplicaProbePath(), {{1, {"--print=chief-done"}}, {1, {}}, {1, {"--sleep=120"}}});
  absl::StatusOr<CustomJob> job = CustomJob::Create(spec, Options());
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "") << output_.str();
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool0-0] chief-done"));
  EXPECT_EQ(Queue(), "");
}

// SlurmSubmit::kSalloc: the same batch script as salloc's command. A het
// job whose chief succeeds and whose worker 1 fails fails by name; a plain
// job runs to SUCCEEDED; a cancelled one leaves no Slurm job and no replica.
TEST_F(SlurmBackendTest, SallocSubmissionRunsFailsAndCancels) {
  CustomJobOptions options = Options();
  options.slurm.submit = slurm::SlurmSubmit::kSalloc;

  absl::StatusOr<CustomJob> job = CustomJob::Create(JobWhoseWorkerOneFails(), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed) << output_.str() << cluster_.Logs();
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message,
              HasSubstr("The replica workerpool1-1 exited with a non-zero status of 3"));
  absl::StatusOr<std::string> log = base::ReadFile(job->job_dir() / "slurm" / "batch.log");
  EXPECT_THAT(log.value_or(""), HasSubstr("Granted job allocation"));
  EXPECT_EQ(Queue(), "");

  jobspec::CustomJob succeeding = testing::MakeJob(
      testing::ReplicaProbePath(), {{1, {"--print=salloc-chief"}}, {2, {"--print=salloc-worker"}}});
  job = CustomJob::Create(succeeding, options);
  ASSERT_THAT(job, IsOk());
  done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "") << output_.str() << cluster_.Logs();
  EXPECT_THAT(output_.str(), HasSubstr("[workerpool1-1] salloc-worker"));
  EXPECT_EQ(Queue(), "");

  const testing::TempDir pids;
  CancelOnceRunning(SleepingJob(pids.path()), options, pids.path());
}

// Runs `trainpkg` with `args` (TRAINPKG_HOME and SLURM_CONF from this
// process's environment).
base::SubprocessResult Trainpkg(std::vector<std::string> args) {
  args.insert(args.begin(), TRAINPKG_PATH);
  absl::StatusOr<base::SubprocessResult> result = base::RunSubprocess(args, "", absl::Seconds(60));
  EXPECT_THAT(result, IsOk());
  if (result.ok()) return *result;
  base::SubprocessResult failed;
  failed.exit_code = -1;
  return failed;
}

// `trainpkg run --backend slurm --detach [submit_flag]` of a chief + 2
// workers job of replica_probe printing hello-from-slurm and sleeping;
// returns the job id once every replica has printed.
std::string StartDetached(const std::filesystem::path& dir, const JobClient& client,
                          const std::string& queue_on_failure,
                          const std::string& submit_flag = "--slurm-submit=sbatch") {
  jobspec::CustomJob spec = testing::MakeJob(testing::ReplicaProbePath(),
                                             {{1, {"--print=hello-from-slurm", "--sleep=120"}},
                                              {2, {"--print=hello-from-slurm", "--sleep=120"}}});
  const std::filesystem::path file = dir / "job.json";
  EXPECT_THAT(base::WriteFileAtomic(file, jobspec::FormatCustomJobJson(spec)), IsOk());
  base::SubprocessResult run =
      Trainpkg({"run", "--backend", "slurm", submit_flag, "--config", file.string(), "--detach"});
  EXPECT_EQ(run.exit_code, 0) << run.out << run.err;
  const size_t at = run.out.find("Job ID: ");
  if (at == std::string::npos) return "";
  const std::string id = run.out.substr(at + 8, run.out.find('\n', at) - at - 8);
  EXPECT_TRUE(testing::WaitFor(
      [&] {
        absl::StatusOr<JobInfo> info = client.GetJob(id);
        if (!info.ok() || info->job.state != jobspec::JobState::kRunning) return false;
        for (const std::string replica : {"workerpool0-0", "workerpool1-0", "workerpool1-1"}) {
          absl::StatusOr<std::string> log = base::ReadFile(client.store().LogFile(id, replica));
          if (!log.ok() || !absl::StrContains(*log, "hello-from-slurm")) return false;
        }
        return true;
      },
      absl::Seconds(45)))
      << queue_on_failure;
  return id;
}

TEST_F(SlurmBackendTest, CliDetachedRunShowsLogsAndCancels) {
  const std::filesystem::path home = home_.path() / "cli-home";
  ::setenv("TRAINPKG_HOME", home.c_str(), 1);
  JobClient client{JobStore(home)};
  const std::string id = StartDetached(home_.path(), client, Queue());
  ASSERT_FALSE(id.empty());
  base::SubprocessResult logs = Trainpkg({"jobs", "logs", id, "--replica", "workerpool1-1"});
  EXPECT_EQ(logs.exit_code, 0) << logs.err;
  EXPECT_THAT(logs.out, HasSubstr("hello-from-slurm"));

  base::SubprocessResult cancel = Trainpkg({"jobs", "cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out << cancel.err;
  absl::StatusOr<JobInfo> info = client.GetJob(id);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->job.state, jobspec::JobState::kCancelled);
  EXPECT_EQ(Queue(), "");
}

// A tuning job whose trials are Slurm jobs: each trial's replica writes its
// metric to the file the tuning service reads, through the shared filesystem.
TEST_F(SlurmBackendTest, TuningJobTrialsRunAsSlurmJobs) {
  const std::filesystem::path timeline = home_.path() / "timeline";
  std::filesystem::create_directories(timeline);
  HyperparameterTuningJobOptions options;
  options.trial_options = Options();
  options.base_output_dir = home_.path() / "study";
  options.poll_interval = absl::Milliseconds(50);
  options.seed = 3;
  absl::StatusOr<HyperparameterTuningJob> job = HyperparameterTuningJob::Create(
      hptune::testing::TimelineStudy("on-slurm", /*max_trials=*/3, /*parallel=*/2, "0.1", timeline),
      options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::HyperparameterTuningJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  ASSERT_EQ(done->state, jobspec::JobState::kSucceeded)
      << (done->error ? done->error->message : "") << output_.str();
  ASSERT_EQ(done->trials.size(), 3u);
  for (const jobspec::Trial& trial : done->trials) {
    EXPECT_EQ(trial.state, jobspec::TrialState::kSucceeded) << trial.id;
    ASSERT_TRUE(trial.final_measurement.has_value()) << trial.id;
    ASSERT_EQ(trial.final_measurement->metrics.size(), 1u);
    // timeline_trainer.sh reports score = 1 - |x - 0.3|.
    const double x = std::get<double>(trial.parameters.at(0).value);
    EXPECT_NEAR(trial.final_measurement->metrics[0].value, 1 - std::abs(x - 0.3), 1e-5);
  }
  // Every trial ran as a Slurm job of the job store; none is left in the queue.
  JobClient client{JobStore(home_.path() / "home")};
  absl::StatusOr<std::vector<JobInfo>> jobs = client.ListJobs();
  ASSERT_THAT(jobs, IsOk());
  int slurm_jobs = 0;
  for (const JobInfo& info : *jobs) slurm_jobs += info.backend == "slurm";
  EXPECT_EQ(slurm_jobs, 3);
  EXPECT_EQ(Queue(), "");

  options.trial_options.backend = JobBackendKind::kK8s;
  EXPECT_THAT(HyperparameterTuningJob::Create(
                  hptune::testing::TimelineStudy("on-k8s", 1, 1, "0", timeline), options)
                  .status()
                  .message(),
              HasSubstr("not on Kubernetes"));
}

class SlurmSubmitTest : public SlurmBackendTest,
                        public ::testing::WithParamInterface<const char*> {};

TEST_P(SlurmSubmitTest, CancelAfterTheSupervisorDiedStillLeavesNoSlurmJob) {
  const std::filesystem::path home = home_.path() / "cli-home";
  ::setenv("TRAINPKG_HOME", home.c_str(), 1);
  JobClient client{JobStore(home)};
  const std::string id = StartDetached(home_.path(), client, Queue(), GetParam());
  ASSERT_FALSE(id.empty());
  // Submitted the way the flag says: salloc writes its grant to the batch log.
  absl::StatusOr<std::string> batch_log =
      base::ReadFile(client.store().JobDir(id) / "slurm" / "batch.log");
  EXPECT_EQ(absl::StrContains(batch_log.value_or(""), "salloc: Granted job allocation"),
            absl::StrContains(GetParam(), "salloc"))
      << batch_log.value_or("");
  absl::StatusOr<JobInfo> running = client.GetJob(id);
  ASSERT_THAT(running, IsOk());
  const int supervisor = running->local.supervisor.pid;
  ASSERT_GT(supervisor, 0);
  ASSERT_EQ(::kill(supervisor, SIGKILL), 0);
  ASSERT_TRUE(
      testing::WaitFor([&] { return testing::ProcessGone(supervisor); }, absl::Seconds(10)));

  base::SubprocessResult cancel = Trainpkg({"jobs", "cancel", id});
  EXPECT_EQ(cancel.exit_code, 0) << cancel.out << cancel.err;
  absl::StatusOr<JobInfo> info = client.GetJob(id);
  ASSERT_THAT(info, IsOk());
  EXPECT_EQ(info->job.state, jobspec::JobState::kCancelled);
  EXPECT_TRUE(testing::WaitFor([&] { return Queue().empty(); }, absl::Seconds(20))) << Queue();
}

INSTANTIATE_TEST_SUITE_P(SbatchAndSalloc, SlurmSubmitTest,
                         ::testing::Values("--slurm-submit=sbatch", "--slurm-submit=salloc"));

}  // namespace
}  // namespace trainpkg::sdk
