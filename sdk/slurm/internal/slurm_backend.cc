#include "sdk/slurm/internal/slurm_backend.h"

#include <signal.h>

#include <chrono>
#include <fstream>
#include <optional>
#include <system_error>
#include <thread>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/log.h"
#include "base/private_file.h"
#include "base/status_macros.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/job_secret.h"
#include "sdk/internal/job_errors.h"
#include "sdk/internal/task_manifest.h"
#include "sdk/slurm/internal/batch_script.h"
#include "sdk/slurm/internal/replica_exit_record.h"
#include "sdk/slurm/internal/slurm_command.h"

namespace trainpkg::sdk::slurm::internal {
namespace {

using sdk::internal::FormatTaskManifest;
using sdk::internal::kCodeDeadlineExceeded;
using sdk::internal::kCodeInternal;
using sdk::internal::kCodeInvalidArgument;
using sdk::internal::kCodeReplicaFailed;
using sdk::internal::ParseTaskManifest;
using sdk::internal::TaskManifest;
// scontrol failures in a row (other than "Invalid job id") before the job
// is given up as FAILED: about a minute at the default poll interval.
constexpr int kMaxQueryErrors = 300;

// The last `count` lines of `path`, for error messages.
std::string Tail(const std::filesystem::path& path, size_t count) {
  absl::StatusOr<std::string> text = base::ReadFile(path);
  if (!text.ok()) return "";
  std::vector<absl::string_view> lines = absl::StrSplit(*text, '\n', absl::SkipWhitespace());
  if (lines.size() > count) lines.erase(lines.begin(), lines.end() - static_cast<long>(count));
  return absl::StrJoin(lines, "\n");
}

// The environment sbatch and salloc run with: the job's plus its secret,
// which Slurm hands on to the batch script and srun (--export=ALL) to every
// task, where PrepareSlurmTask puts it in the replica's cluster env.
std::map<std::string, std::string> SubmitEnvironment(
    const sdk::internal::SupervisedJobConfig& job) {
  std::map<std::string, std::string> env = job.environment;
  env.insert_or_assign(jobspec::kJobSecretEnv, job.job_secret);
  return env;
}

}  // namespace

SlurmBackend::SlurmBackend(SlurmBackendConfig config,
                           std::shared_ptr<sdk::internal::JobRecorder> recorder)
    : config_(std::move(config)),
      files_(config_.job.store.JobDir(config_.job.job_id)),
      recorder_(std::move(recorder)) {
  for (const sdk::internal::ReplicaPlan& plan : config_.job.plans) {
    Replica replica;
    replica.details.name = plan.ref.Name();
    replica.details.argv = plan.argv;
    replicas_.push_back(std::move(replica));
  }
}

SlurmBackend::~SlurmBackend() {
  Cancel(/*immediately=*/false);
  if (supervisor_.joinable()) supervisor_.join();
}

absl::Status SlurmBackend::Start() {
  supervisor_ = std::thread(&SlurmBackend::Supervise, this);
  return absl::OkStatus();
}

void SlurmBackend::Wait() {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [this] { return done_; });
}

void SlurmBackend::Cancel(bool /*immediately*/) {
  // scancel's own escalation (SIGTERM, KillWait, SIGKILL) applies either way.
  std::lock_guard<std::mutex> lock(mu_);
  if (done_) return;
  cancel_ = true;
  cv_.notify_all();
}

bool SlurmBackend::CancelRequested() {
  bool from_store = config_.job.store.CancelRequested(config_.job.job_id);
  std::lock_guard<std::mutex> lock(mu_);
  cancel_ = cancel_ || from_store;
  return cancel_;
}

absl::StatusOr<std::string> SlurmBackend::Submit() {
  TP_RETURN_IF_ERROR(base::WriteFileAtomicPrivate(
      files_.manifest(), FormatTaskManifest(TaskManifest{.job_id = config_.job.job_id,
                                                         .project_id = config_.job.project_id,
                                                         .spec = config_.job.spec,
                                                         .replica = "",
                                                         .env = {}})));
  const BatchScriptRequest request{.job_id = config_.job.job_id,
                                   .spec = config_.job.spec,
                                   .files = files_,
                                   .task_program = config_.options.task_program,
                                   .options = &config_.options,
                                   .grace_period = config_.job.grace_period};
  TP_ASSIGN_OR_RETURN(std::string script, MakeBatchScript(request));
  TP_RETURN_IF_ERROR(base::WriteFileAtomicPrivate(files_.script(), script));
  if (config_.options.submit == SlurmSubmit::kSalloc) return SubmitSalloc(request);
  TP_ASSIGN_OR_RETURN(
      CommandResult sbatch,
      RunSlurmCommand(*config_.job.launcher, {"sbatch", "--parsable", files_.script().string()},
                      SubmitEnvironment(config_.job)));
  std::string output(absl::StripAsciiWhitespace(sbatch.output));
  if (!sbatch.exit.ok()) {
    return absl::FailedPreconditionError(
        absl::StrCat("sbatch ", DescribeExitStatus(sbatch.exit), ": ", output));
  }
  // --parsable prints "<id>" or "<id>;<cluster>" as its last line.
  std::vector<absl::string_view> lines = absl::StrSplit(output, '\n');
  absl::string_view id = lines.back();
  id = id.substr(0, id.find(';'));
  int64_t number = 0;
  if (!absl::SimpleAtoi(id, &number)) {
    return absl::InternalError(absl::StrCat("sbatch printed no job id: ", output));
  }
  TP_RETURN_IF_ERROR(base::WriteFileAtomicPrivate(files_.slurm_job_id(), std::string(id)));
  return std::string(id);
}

absl::StatusOr<std::string> SlurmBackend::SubmitSalloc(const BatchScriptRequest& request) {
  TP_ASSIGN_OR_RETURN(std::vector<std::string> argv, SallocArguments(request));
  // salloc in a session of its own, neither in this process's group nor
  // killed when it ends (the job goes on, as a batch job would), with its
  // output and the script's appended to the batch log.
  TP_ASSIGN_OR_RETURN(salloc_, config_.job.launcher->Start(ProcessSpec{
                                   .name = "salloc",
                                   .program = argv[0],
                                   .argv = argv,
                                   .env = SubmitEnvironment(config_.job),
                                   .append_output_to = files_.batch_log(),
                                   .outlives_caller = true,
                               }));
  // salloc prints "salloc: Pending job allocation <id>" (queued) or
  // "salloc: Granted job allocation <id>" as soon as the controller answers.
  constexpr std::string_view kAllocation = "job allocation ";
  // The controller answers within its MessageTimeout (default 10 s); a salloc
  // that has said nothing long after that is stopped rather than waited on.
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  for (;;) {
    // Whether it exited is asked before the log is read, so that the log of
    // an exited salloc is complete.
    const std::optional<ExitStatus> exit = salloc_->TryWait();
    if (exit.has_value()) salloc_.reset();
    absl::StatusOr<std::string> text = base::ReadFile(files_.batch_log());
    size_t at = text.ok() ? text->find(kAllocation) : std::string::npos;
    if (at != std::string::npos) {
      std::string_view rest = std::string_view(*text).substr(at + kAllocation.size());
      std::string_view id = rest.substr(0, rest.find_first_not_of("0123456789"));
      if (!id.empty()) {
        TP_RETURN_IF_ERROR(base::WriteFileAtomicPrivate(files_.slurm_job_id(), std::string(id)));
        return std::string(id);
      }
    }
    if (exit.has_value()) {
      return absl::FailedPreconditionError(
          absl::StrCat("salloc ", DescribeExitStatus(*exit), ": ", Tail(files_.batch_log(), 5)));
    }
    if (std::chrono::steady_clock::now() > deadline) {
      salloc_->SignalGroup(SIGTERM);  // its session: salloc withdraws its request
      salloc_->Wait();
      salloc_.reset();
      return absl::DeadlineExceededError(absl::StrCat(
          "salloc named no job allocation within 60 s: ", Tail(files_.batch_log(), 5)));
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  }
}

void SlurmBackend::ReapSalloc() {
  if (salloc_ == nullptr) return;
  // Once the job has ended salloc relinquishes the allocation and exits;
  // if following the job failed instead, salloc is left to run (its
  // Process, outliving its caller, is dropped without a kill).
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (!salloc_->TryWait().has_value() && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  salloc_.reset();
}

void SlurmBackend::Supervise() {
  std::pair<jobspec::JobState, std::optional<jobspec::RpcStatus>> outcome;
  absl::StatusOr<std::string> slurm_id = Submit();
  if (!slurm_id.ok()) {
    outcome = {jobspec::JobState::kFailed,
               jobspec::RpcStatus{.code = kCodeInvalidArgument,
                                  .message = absl::StrCat("Submitting the job to Slurm: ",
                                                          slurm_id.status().message())}};
  } else {
    recorder_->SetState(jobspec::JobState::kPending);
    TP_LOG(INFO, "job {}: Slurm job {}", config_.job.job_id, *slurm_id);
    absl::StatusOr<std::vector<SlurmComponent>> last = Follow(*slurm_id);
    if (last.ok()) {
      outcome = Outcome(*slurm_id, *last);
    } else {
      outcome = {jobspec::JobState::kFailed,
                 jobspec::RpcStatus{.code = kCodeInternal,
                                    .message = absl::StrCat("Following Slurm job ", *slurm_id, ": ",
                                                            last.status().message())}};
    }
  }
  ReapSalloc();
  Refresh(/*final=*/true);
  recorder_->SetState(outcome.first, outcome.second);
  std::lock_guard<std::mutex> lock(mu_);
  done_ = true;
  cv_.notify_all();
}

absl::StatusOr<std::vector<SlurmComponent>> SlurmBackend::Follow(const std::string& slurm_id) {
  bool scancel_sent = false;
  bool running = false;
  int query_errors = 0;
  for (;;) {
    if (!scancel_sent && CancelRequested()) {
      recorder_->SetState(jobspec::JobState::kCancelling);
      absl::StatusOr<CommandResult> scancel =
          RunSlurmCommand(*config_.job.launcher, {"scancel", slurm_id}, config_.job.environment);
      if (!scancel.ok() || !scancel->exit.ok()) {
        TP_LOG(ERROR, "job {}: scancel {}: {}", config_.job.job_id, slurm_id,
               scancel.ok() ? scancel->output : std::string(scancel.status().message()));
      }
      scancel_sent = true;
    }
    TP_ASSIGN_OR_RETURN(
        CommandResult query,
        RunSlurmCommand(*config_.job.launcher, {"scontrol", "show", "job", "-o", slurm_id},
                        config_.job.environment));
    if (query.exit.ok()) {
      TP_ASSIGN_OR_RETURN(std::vector<SlurmComponent> components, ParseScontrolJobs(query.output));
      query_errors = 0;
      if (components.empty()) return components;
      const SlurmPhase phase = JobPhase(components);
      if (phase == SlurmPhase::kRunning && !running && !scancel_sent) {
        recorder_->SetState(jobspec::JobState::kRunning);
        running = true;
      }
      Refresh(/*final=*/false);
      if (IsEnded(phase)) return components;
    } else if (absl::StrContains(query.output, "Invalid job id")) {
      return std::vector<SlurmComponent>();  // ended and purged by the controller
    } else if (++query_errors >= kMaxQueryErrors) {
      return absl::UnavailableError(absl::StrCat("scontrol ", DescribeExitStatus(query.exit), ": ",
                                                 absl::StripAsciiWhitespace(query.output)));
    }
    std::unique_lock<std::mutex> lock(mu_);
    cv_.wait_for(lock, absl::ToChronoNanoseconds(config_.options.poll_interval),
                 [&] { return cancel_ && !scancel_sent; });
  }
}

std::pair<jobspec::JobState, std::optional<jobspec::RpcStatus>> SlurmBackend::Outcome(
    const std::string& slurm_id, const std::vector<SlurmComponent>& components) {
  const jobspec::RpcStatus cancelled = sdk::internal::CancelledError();
  if (components.empty()) {
    // The controller forgot the job: judge it by what the replicas recorded.
    if (std::optional<jobspec::RpcStatus> failure = ReplicaFailure(); failure.has_value()) {
      return {jobspec::JobState::kFailed, failure};
    }
    if (CancelRequested()) return {jobspec::JobState::kCancelled, cancelled};
    return {jobspec::JobState::kSucceeded, std::nullopt};
  }
  const SlurmComponent& leader = Leader(components);
  switch (JobPhase(components)) {
    case SlurmPhase::kCompleted:
      return {jobspec::JobState::kSucceeded, std::nullopt};
    case SlurmPhase::kCancelled:
      return {jobspec::JobState::kCancelled, cancelled};
    case SlurmPhase::kFailed: {
      std::optional<jobspec::RpcStatus> failure = ReplicaFailure();
      if (!failure.has_value()) {
        failure = jobspec::RpcStatus{
            .code = kCodeReplicaFailed,
            .message = absl::StrCat("Slurm job ", slurm_id, " failed (ExitCode=", leader.exit_code,
                                    ", Reason=", leader.reason, "). ", Tail(files_.batch_log(), 5),
                                    " See ", files_.batch_log().string())};
      }
      return {jobspec::JobState::kFailed, failure};
    }
    case SlurmPhase::kTimedOut: {
      if (config_.job.spec.scheduling.has_value() &&
          config_.job.spec.scheduling->timeout.has_value()) {
        return {jobspec::JobState::kFailed,
                sdk::internal::TimeoutError(*config_.job.spec.scheduling->timeout)};
      }
      return {jobspec::JobState::kFailed,
              jobspec::RpcStatus{
                  .code = kCodeDeadlineExceeded,
                  .message = absl::StrCat("Slurm job ", slurm_id, " reached its time limit (",
                                          leader.state, ") and was stopped.")}};
    }
    default:
      return {jobspec::JobState::kFailed,
              jobspec::RpcStatus{
                  .code = kCodeInternal,
                  .message = absl::StrCat("Slurm job ", slurm_id, " ended in state ", leader.state,
                                          " (Reason=", leader.reason, ").")}};
  }
}

std::optional<jobspec::RpcStatus> SlurmBackend::ReplicaFailure() {
  for (const ReplicaExitRecord& record : ReadReplicaExitRecords(files_.exits_dir())) {
    if (record.status.ok()) continue;
    return sdk::internal::ReplicaFailedError(
        record.replica, record.status,
        config_.job.store.LogFile(config_.job.job_id, record.replica));
  }
  return std::nullopt;
}

void SlurmBackend::Refresh(bool final) {
  std::map<std::string, ExitStatus> exits;
  for (const ReplicaExitRecord& record : ReadReplicaExitRecords(files_.exits_dir())) {
    exits.emplace(record.replica, record.status);
  }
  for (Replica& replica : replicas_) {
    ReplicaDetails details = replica.details;
    if (details.address.empty()) {
      absl::StatusOr<std::string> address = base::ReadFile(files_.peer(details.name));
      if (address.ok()) details.address = *std::move(address);
    }
    if (auto exit = exits.find(details.name); exit != exits.end())
      details.exit_status = exit->second;
    if (!(details == replica.details)) {
      replica.details = std::move(details);
      recorder_->UpdateReplica(replica.details);
    }
    if (config_.job.live == nullptr) continue;
    std::ifstream log(config_.job.store.LogFile(config_.job.job_id, replica.details.name),
                      std::ios::binary);
    if (!log) continue;
    log.seekg(static_cast<std::streamoff>(replica.log_offset));
    std::string chunk((std::istreambuf_iterator<char>(log)), std::istreambuf_iterator<char>());
    replica.log_offset += chunk.size();
    replica.pending_output += chunk;
    const std::string prefix = absl::StrCat("[", replica.details.name, "] ");
    size_t start = 0;
    for (size_t end; (end = replica.pending_output.find('\n', start)) != std::string::npos;
         start = end + 1) {
      config_.job.live->WriteOutput(
          prefix, std::string_view(replica.pending_output).substr(start, end - start));
    }
    replica.pending_output.erase(0, start);
    if (final && !replica.pending_output.empty()) {
      config_.job.live->WriteOutput(prefix, replica.pending_output);
      replica.pending_output.clear();
    }
  }
}

}  // namespace trainpkg::sdk::slurm::internal
