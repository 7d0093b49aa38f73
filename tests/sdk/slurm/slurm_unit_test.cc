// The Slurm backend's pure parts: the machineSpec mapping, the batch
// script, scontrol's output, the task manifest and exit records; and salloc
// started through the process seam, with a fake launcher.
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/time/clock.h"
#include "base/environment.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/cli/backend_flags.h"
#include "sdk/custom_job.h"
#include "sdk/internal/task_manifest.h"
#include "sdk/process_launcher.h"
#include "sdk/slurm/internal/batch_script.h"
#include "sdk/slurm/internal/replica_exit_record.h"
#include "sdk/slurm/internal/slurm_job_state.h"
#include "sdk/slurm/internal/slurm_resources.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk::slurm::internal {
namespace {

using sdk::internal::FormatTaskManifest;
using sdk::internal::ParseTaskManifest;
using sdk::internal::TaskManifest;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Not;

TEST(SlurmResourcesTest, MachineTypesHaveTheirComputeEngineShape) {
  EXPECT_EQ(*ShapeOfMachineType("n1-standard-4"), (MachineShape{4, 15360}));
  EXPECT_EQ(*ShapeOfMachineType("n1-highmem-8"), (MachineShape{8, 53248}));
  EXPECT_EQ(*ShapeOfMachineType("e2-standard-2"), (MachineShape{2, 8192}));
  EXPECT_EQ(*ShapeOfMachineType("a2-highgpu-2g"), (MachineShape{24, 174080}));
  absl::StatusOr<MachineShape> unknown = ShapeOfMachineType("z9-mega-4");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(), HasSubstr("n1-standard-N"));
}

TEST(SlurmResourcesTest, PoolOptionsMapCpusMemoryGpusDiskAndTimeout) {
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}, {2, {}}});
  jobspec::WorkerPoolSpec& workers = job.job_spec.worker_pool_specs[1];
  workers.machine_spec->accelerator_type = "NVIDIA_TESLA_T4";
  workers.machine_spec->accelerator_count = 2;
  workers.disk_spec = jobspec::DiskSpec{.boot_disk_type = "pd-ssd", .boot_disk_size_gb = 100};
  job.job_spec.scheduling.emplace().timeout = absl::Seconds(90);
  EXPECT_THAT(*PoolResourceOptions(job.job_spec, 0, {}),
              ElementsAre("--ntasks=1", "--cpus-per-task=4", "--mem-per-cpu=3840M", "--time=2"));
  EXPECT_THAT(*PoolResourceOptions(job.job_spec, 1, {{"NVIDIA_TESLA_T4", "t4"}}),
              ElementsAre("--ntasks=2", "--cpus-per-task=4", "--mem-per-cpu=3840M",
                          "--gpus-per-task=t4:2", "--tmp=100G", "--time=2"));
  EXPECT_THAT(*PoolResourceOptions(job.job_spec, 1, {}), ::testing::Contains("--gpus-per-task=2"));
  job.job_spec.worker_pool_specs[0].machine_spec->machine_type = "bogus";
  absl::StatusOr<std::vector<std::string>> bad = PoolResourceOptions(job.job_spec, 0, {});
  EXPECT_THAT(
      bad.status().message(),
      HasSubstr("jobSpec.workerPoolSpecs[0].machineSpec.machineType: unknown machine type"));
}

// The script of `job` with default options and made-up paths.
absl::StatusOr<std::string> ScriptWithDefaults(const jobspec::CustomJob& job) {
  SlurmBackendOptions options;
  return MakeBatchScript(BatchScriptRequest{.job_id = "7",
                                            .spec = job.job_spec,
                                            .files = SlurmJobFiles("/j"),
                                            .task_program = "/t",
                                            .options = &options});
}

TEST(BatchScriptTest, PoolsOfDifferentShapesAreHetComponents) {
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}, {2, {}}, {0, {}}, {1, {}}});
  job.job_spec.worker_pool_specs[3].machine_spec->machine_type = "n1-highcpu-16";
  SlurmBackendOptions options;
  options.partition = "gpu";
  options.sbatch_args = {"--account=ml"};
  absl::StatusOr<std::string> script =
      MakeBatchScript(BatchScriptRequest{.job_id = "42",
                                         .spec = job.job_spec,
                                         .files = SlurmJobFiles("/shared/jobs/42"),
                                         .task_program = "/opt/trainpkg/bin/trainpkg-slurm-task",
                                         .options = &options});
  ASSERT_THAT(script, IsOk());
  EXPECT_THAT(*script, HasSubstr("#SBATCH --job-name=trainpkg-42\n"
                                 "#SBATCH --output=\"/shared/jobs/42/slurm/batch.log\"\n"
                                 "#SBATCH --partition=gpu\n#SBATCH --account=ml\n"
                                 "#SBATCH --ntasks=1 --cpus-per-task=4 --mem-per-cpu=3840M\n"
                                 "#SBATCH hetjob\n"));
  // Pools 0, 1 and 3 (the empty pool 2 has no component) are groups 0, 1, 2.
  EXPECT_THAT(*script, HasSubstr("srun --het-group=2 --kill-on-bad-exit=1 "
                                 "--export=ALL,TRAINPKG_SLURM_POOL=3 "
                                 "--output='/shared/jobs/42/logs/workerpool3-%t.log' "
                                 "\"$task\" \"$job_dir\""));
  EXPECT_THAT(*script, HasSubstr("task='/opt/trainpkg/bin/trainpkg-slurm-task'"));
  EXPECT_THAT(*script, Not(HasSubstr("TRAINPKG_SLURM_POOL=2")));
}

TEST(BatchScriptTest, PoolsOfOneShapeShareAPlainJob) {
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}, {3, {}}});
  absl::StatusOr<std::string> script = ScriptWithDefaults(job);
  ASSERT_THAT(script, IsOk());
  EXPECT_THAT(*script, Not(HasSubstr("hetjob")));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --ntasks=4 --cpus-per-task=4 --mem-per-cpu=3840M\n"));
  EXPECT_THAT(*script, HasSubstr("srun --exact --ntasks=3 --cpus-per-task=4 --mem-per-cpu=3840M "
                                 "--kill-on-bad-exit=1 --export=ALL,TRAINPKG_SLURM_POOL=1 "));
}

TEST(BatchScriptTest, OnePoolIsAPlainJob) {
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{4, {}}});
  absl::StatusOr<std::string> script = ScriptWithDefaults(job);
  ASSERT_THAT(script, IsOk());
  EXPECT_THAT(*script, Not(HasSubstr("hetjob")));
  EXPECT_THAT(*script, Not(HasSubstr("--het-group")));
  EXPECT_THAT(*script, HasSubstr("#SBATCH --ntasks=4 "));
}

TEST(BatchScriptTest, SallocAsksForTheSameComponentsOnItsCommandLine) {
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {}}, {2, {}}});
  job.job_spec.worker_pool_specs[1].machine_spec->machine_type = "n1-standard-2";
  SlurmBackendOptions options;
  options.partition = "gpu";
  options.sbatch_args = {"--account=ml"};
  const BatchScriptRequest request{.job_id = "42",
                                   .spec = job.job_spec,
                                   .files = SlurmJobFiles("/shared/jobs/42"),
                                   .task_program = "/t",
                                   .options = &options};
  absl::StatusOr<std::vector<std::string>> argv = SallocArguments(request);
  ASSERT_THAT(argv, IsOk());
  EXPECT_THAT(*argv, ::testing::ElementsAre(
                         "salloc", "--job-name=trainpkg-42", "--partition=gpu", "--account=ml",
                         "--ntasks=1", "--cpus-per-task=4", "--mem-per-cpu=3840M", ":",
                         "--partition=gpu", "--account=ml", "--ntasks=2", "--cpus-per-task=2",
                         "--mem-per-cpu=3840M", "/bin/bash", "/shared/jobs/42/slurm/batch.sh"));

  job.job_spec.worker_pool_specs[1].machine_spec->machine_type = "n1-standard-4";
  argv = SallocArguments(BatchScriptRequest{.job_id = "7",
                                            .spec = job.job_spec,
                                            .files = SlurmJobFiles("/j"),
                                            .task_program = "/t",
                                            .options = &options});
  ASSERT_THAT(argv, IsOk());
  EXPECT_THAT(*argv,
              ::testing::ElementsAre("salloc", "--job-name=trainpkg-7", "--partition=gpu",
                                     "--account=ml", "--ntasks=3", "--cpus-per-task=4",
                                     "--mem-per-cpu=3840M", "/bin/bash", "/j/slurm/batch.sh"));
}

TEST(SlurmJobStateTest, ParsesHetComponentsAndJudgesTheLeader) {
  absl::StatusOr<std::vector<SlurmComponent>> components = ParseScontrolJobs(
      "JobId=5 HetJobId=5 HetJobOffset=0 JobName=trainpkg-1 JobState=FAILED Reason=NonZeroExitCode "
      "Dependency=(null) ExitCode=1:0 RunTime=00:00:03\n"
      "JobId=6 HetJobId=5 HetJobOffset=1 JobName=trainpkg-1 JobState=COMPLETING Reason=None "
      "ExitCode=0:0\n");
  ASSERT_THAT(components, IsOk());
  ASSERT_EQ(components->size(), 2u);
  EXPECT_EQ(Leader(*components).job_id, "5");
  EXPECT_EQ(Leader(*components).exit_code, "1:0");
  EXPECT_EQ((*components)[1].het_offset, 1);
  // Not ended while a component is still completing.
  EXPECT_EQ(JobPhase(*components), SlurmPhase::kRunning);
  (*components)[1].state = "FAILED";
  EXPECT_EQ(JobPhase(*components), SlurmPhase::kFailed);
  EXPECT_EQ(PhaseOfState("PENDING"), SlurmPhase::kPending);
  EXPECT_EQ(PhaseOfState("TIMEOUT"), SlurmPhase::kTimedOut);
  EXPECT_EQ(PhaseOfState("NODE_FAIL"), SlurmPhase::kOtherEnd);
  EXPECT_FALSE(ParseScontrolJobs("JobName=x\n").ok());
}

TEST(TaskManifestTest, RoundTrips) {
  jobspec::CustomJob job = testing::MakeJob("/bin/true", {{1, {"--x=1"}}, {2, {}}});
  absl::StatusOr<TaskManifest> parsed = ParseTaskManifest(FormatTaskManifest(
      {.job_id = "9", .project_id = "p", .spec = job.job_spec, .replica = "", .env = {}}));
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->job_id, "9");
  EXPECT_EQ(parsed->project_id, "p");
  EXPECT_EQ(parsed->spec, job.job_spec);
  EXPECT_THAT(ParseTaskManifest("{\"jobId\":\"9\"}").status().message(), HasSubstr("projectId"));
  EXPECT_TRUE(parsed->replica.empty());
  EXPECT_TRUE(parsed->env.empty());
  // One replica's (the SSH backend's container replicas).
  absl::StatusOr<TaskManifest> one =
      ParseTaskManifest(FormatTaskManifest({.job_id = "9",
                                            .project_id = "p",
                                            .spec = job.job_spec,
                                            .replica = "workerpool1-0",
                                            .env = {{"A", "b c"}}}));
  ASSERT_THAT(one, IsOk());
  EXPECT_EQ(one->replica, "workerpool1-0");
  EXPECT_EQ(one->env, (std::map<std::string, std::string>{{"A", "b c"}}));
}

TEST(ReplicaExitRecordTest, OldestFirstSkippingTemporaryFiles) {
  testing::TempDir dir;
  const absl::Time now = absl::Now();
  ASSERT_THAT(WriteReplicaExitRecord(dir.path(), {"workerpool1-0", {.code = 0}, now}), IsOk());
  ASSERT_TRUE(
      WriteReplicaExitRecord(dir.path(), {"workerpool1-1", {.signal = 15}, now - absl::Seconds(1)})
          .ok());
  std::ofstream(dir.path() / "workerpool0-0.tmp.1.2") << "{";
  std::vector<ReplicaExitRecord> records = ReadReplicaExitRecords(dir.path());
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records[0].replica, "workerpool1-1");
  EXPECT_EQ(records[0].status, (ExitStatus{.code = 0, .signal = 15}));
  EXPECT_EQ(records[1].replica, "workerpool1-0");
  EXPECT_TRUE(ReadReplicaExitRecords(dir.path() / "absent").empty());
}

// A process that has already exited with `status`; its output went to a file.
class ExitedProcess final : public sdk::Process {
 public:
  explicit ExitedProcess(sdk::ExitStatus status) : status_(status) {}
  int pid() const override { return -1; }
  int output_fd() const override { return -1; }
  sdk::ExitStatus Wait() override { return status_; }
  std::optional<sdk::ExitStatus> TryWait() override { return status_; }
  void SignalGroup(int) override {}

 private:
  const sdk::ExitStatus status_;
};

// Answers salloc as a controller that rejects the request makes it answer:
// an error in the output file and exit status 1. Records every spec.
class RejectingSallocLauncher final : public sdk::ProcessLauncher {
 public:
  absl::StatusOr<std::unique_ptr<sdk::Process>> Start(const sdk::ProcessSpec& spec) override {
    std::lock_guard<std::mutex> lock(mu_);
    specs_.push_back(spec);
    if (spec.append_output_to.has_value()) {
      absl::Status written = base::AppendToFile(
          *spec.append_output_to,
          "salloc: error: Job submit/allocate failed: Invalid partition name specified\n");
      if (!written.ok()) return written;
    }
    return std::make_unique<ExitedProcess>(sdk::ExitStatus{.code = 1});
  }
  std::vector<sdk::ProcessSpec> specs() {
    std::lock_guard<std::mutex> lock(mu_);
    return specs_;
  }

 private:
  std::mutex mu_;
  std::vector<sdk::ProcessSpec> specs_;
};

TEST(SallocSubmissionTest, StartsSallocThroughTheLauncherAndReportsItsError) {
  const testing::TempDir home;
  auto launcher = std::make_shared<RejectingSallocLauncher>();
  sdk::CustomJobOptions options;
  options.backend = sdk::JobBackendKind::kSlurm;
  options.home = home.path();
  options.launcher = launcher;
  options.environment = std::map<std::string, std::string>{{"PATH", "/usr/bin:/bin"}};
  options.slurm.task_program = "/bin/true";
  options.slurm.submit = slurm::SlurmSubmit::kSalloc;
  absl::StatusOr<sdk::CustomJob> job =
      sdk::CustomJob::Create(testing::MakeJob("/bin/true", {{1, {}}, {2, {}}}), options);
  ASSERT_THAT(job, IsOk());
  absl::StatusOr<jobspec::CustomJob> done = job->Run();
  ASSERT_THAT(done, IsOk());
  EXPECT_EQ(done->state, jobspec::JobState::kFailed);
  ASSERT_TRUE(done->error.has_value());
  EXPECT_THAT(done->error->message,
              HasSubstr("Submitting the job to Slurm: salloc exited with a non-zero status of 1: "
                        "salloc: error: Job submit/allocate failed: Invalid partition name"));

  std::vector<sdk::ProcessSpec> specs = launcher->specs();
  ASSERT_FALSE(specs.empty());
  const sdk::ProcessSpec& salloc = specs.front();
  EXPECT_EQ(salloc.program, "salloc");
  EXPECT_EQ(salloc.argv.back(), (job->job_dir() / "slurm" / "batch.sh").string());
  EXPECT_TRUE(salloc.outlives_caller);
  EXPECT_EQ(salloc.append_output_to, job->job_dir() / "slurm" / "batch.log");
}

}  // namespace
}  // namespace trainpkg::sdk::slurm::internal

namespace trainpkg::cli {
namespace {

TEST(SlurmBackendFlagsTest, SlurmFlagsSetTheOptionsAndNeedTheSlurmBackend) {
  const base::MapEnvironment no_config;  // no config file, no gcloud defaults
  BackendFlags flags;
  flags.backend = "slurm";
  flags.partition = "gpu";
  flags.sbatch_args = {"--account=ml"};
  sdk::CustomJobOptions options;
  ASSERT_THAT(ApplyBackendFlags(flags, no_config, options), IsOk());
  EXPECT_EQ(options.backend, sdk::JobBackendKind::kSlurm);
  EXPECT_EQ(options.slurm.partition, "gpu");
  EXPECT_THAT(options.slurm.sbatch_args, ::testing::ElementsAre("--account=ml"));
  EXPECT_EQ(options.slurm.submit, sdk::slurm::SlurmSubmit::kSbatch);
  flags.slurm_submit = "salloc";
  ASSERT_THAT(ApplyBackendFlags(flags, no_config, options), IsOk());
  EXPECT_EQ(options.slurm.submit, sdk::slurm::SlurmSubmit::kSalloc);
  flags.partition.clear();
  flags.sbatch_args.clear();
  flags.backend = "local";
  EXPECT_EQ(ApplyBackendFlags(flags, no_config, options).message(),
            "--slurm-submit: only applies with --backend slurm");
  flags.slurm_submit = "sbatch";
  flags.partition = "gpu";
  EXPECT_EQ(ApplyBackendFlags(flags, no_config, options).message(),
            "--partition: only applies with --backend slurm");
  flags.backend = "slurm";
  flags.project = "p";
  EXPECT_EQ(ApplyBackendFlags(flags, no_config, options).message(),
            "--project: only applies with --backend vertex");
}

}  // namespace
}  // namespace trainpkg::cli
