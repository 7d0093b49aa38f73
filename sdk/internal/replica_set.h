// The replicas of one supervised job that this process started and watches
// (host processes, runc containers, or ssh sessions to other hosts), and the
// rules that turn their exits into the job's outcome: the first replica to
// fail fails the job, parameter servers (pool 2) do not keep a job from
// succeeding, scheduling.timeout, and cancellation here or through the job
// store. Shared by the local engine (LocalProcessBackend) and the SSH
// engine (SshBackend), which start the replicas their own way.
//
// The supervisor thread runs the job with Supervise: its `start` fills the
// replicas (Reset, at) and starts them (StartReplica); Monitor, and on a
// restart Stop and FinishAll, follow; the engine then calls Stop, FinishAll
// and Done. Wait and Cancel may be called from any thread.
#ifndef TRAINPKG_SDK_INTERNAL_REPLICA_SET_H_
#define TRAINPKG_SDK_INTERNAL_REPLICA_SET_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "jobspec/custom_job.h"
#include "sdk/internal/job_recorder.h"
#include "sdk/internal/running_replica.h"
#include "sdk/internal/supervised_job_config.h"
#include "sdk/local_job_details.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::internal {

class ReplicaSet {
 public:
  enum class Outcome { kSucceeded, kFailed, kCancelled };
  struct Replica {
    ReplicaDetails details;  // recorded in local.json
    int pool = 0;
    // How the job's error names it: "workerpool1-0", or "workerpool1-0@host2".
    std::string failure_name;
    std::unique_ptr<RunningReplica> running;
    std::optional<ExitStatus> exit;  // guarded by the set's lock
    int exit_sequence = 0;           // 1 for the first replica to exit; guarded too
  };

  // `config` is the engine's and outlives this.
  ReplicaSet(const SupervisedJobConfig& config, std::shared_ptr<JobRecorder> recorder);

  // Blocks until Done(). Thread-safe.
  void Wait();
  // Asks for the job to stop; `immediately` skips the grace period.
  // Thread-safe, idempotent, no effect after Done().
  void Cancel(bool immediately);
  // True once cancellation was asked for here or through the job store.
  bool CancelRequested();

  // Replaces the replicas. REQUIRES: none running (before the first start,
  // or after Stop() and FinishAll()).
  void Reset(std::vector<Replica> replicas);
  size_t size() const { return replicas_.size(); }
  // Replica `i`, for the supervisor to fill before it starts.
  Replica& at(size_t i) { return replicas_.at(i); }

  // Starts replica `i` with `launcher` (on the calling thread, which must
  // outlive it), its output to the job store's log and the live stream. The
  // launcher's error otherwise. Its pid reaches local.json with
  // RecordStarted().
  absl::Status StartReplica(size_t i, ProcessLauncher& launcher, const ProcessSpec& spec);
  // Writes every replica started so far to local.json in one record, in
  // their order. Call it once the starts are done (also after a failed or
  // cancelled one): one write per job rather than one per replica, each
  // rewriting a record that grows with the replicas, kept a 64-replica
  // launch superlinear. Nothing depends on the pids being on disk sooner:
  // replicas die with the supervisor.
  void RecordStarted();
  // Waits for the job to succeed, fail (setting `failure`), time out or be
  // cancelled.
  Outcome Monitor(std::optional<jobspec::RpcStatus>& failure);
  // Starts the replicas: calls Reset and StartReplica for each; the job's
  // failure if it could not, nullopt when they were started or a cancel
  // stopped the start. `restarts` is how many times the job restarted.
  using StartReplicas = std::function<std::optional<jobspec::RpcStatus>(int restarts)>;
  // Runs the job until its outcome: `start`, then Monitor. With
  // scheduling.restartJobOnWorkerRestart (restart_policy.h) a replica
  // failure first stops every replica (Stop, FinishAll), writes "<the
  // failure> Restarting all replicas (restart N of at most M)." to the live
  // stream and the log, and calls `start` again, until the budget is spent.
  // The caller then calls Stop, FinishAll and Done(outcome, failure).
  Outcome Supervise(const StartReplicas& start, std::optional<jobspec::RpcStatus>& failure);
  // SIGTERM to every replica still running (on success: the parameter
  // servers), SIGKILL after the grace period, and waits until all are reaped.
  void Stop();
  // Joins every started replica's reaper and log pump.
  void FinishAll();
  // Records the job's terminal state for `outcome` and wakes Wait().
  void Done(Outcome outcome, std::optional<jobspec::RpcStatus> failure);

 private:
  void OnExit(size_t index, ExitStatus status);

  const SupervisedJobConfig& config_;
  const std::shared_ptr<JobRecorder> recorder_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::vector<Replica> replicas_;  // resized only by Reset
  bool cancel_ = false;            // guarded by mu_
  bool kill_now_ = false;          // guarded by mu_
  bool done_ = false;              // guarded by mu_
  int exits_ = 0;                  // guarded by mu_
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_REPLICA_SET_H_
