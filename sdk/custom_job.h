// Running a Vertex AI CustomJob, the C++ counterpart of the Python SDK's
// aiplatform.CustomJob (run(), submit(), wait(), cancel()).
//
//   TP_ASSIGN_OR_RETURN(sdk::CustomJob job, sdk::CustomJob::Create(spec, {.log_stream =
//   &std::cout})); TP_ASSIGN_OR_RETURN(jobspec::CustomJob done, job.Run()); if (done.state !=
//   jobspec::JobState::kSucceeded) ...  // done.error says why
//
// Locally, a pool whose containerSpec.imageUri is "local:<path to an
// executable>" runs in process mode (a relative path is resolved against the
// current directory at Submit()): each replica runs that executable as a
// host process, argv = containerSpec.command (when set, it replaces the
// entrypoint, as on Vertex) or [executable], followed by containerSpec.args.
// Any other imageUri (a registry reference, pulled into the local image
// store when absent, or oci:DIR[:TAG]) runs in container mode: each replica
// is a runc container of the image (sdk/local/internal/container_replica.h), with
// the base output directory mounted at the same path (nosuid,nodev), the
// replica's name as host name, and the job's own network namespace, shared
// by its replicas and holding only loopback (CustomJobOptions::host_network
// opts out). A job that mixes process and container mode fails unless
// host_network. Each replica gets a
// free 127.0.0.1 port and the environment Vertex injects (CLUSTER_SPEC,
// TF_CONFIG, AIP_*, CLOUD_ML_*; jobspec/cluster_env.h) on top of this
// process's environment (process mode) or the image's (container mode), then
// containerSpec.env with $(VAR) expansion. A job without
// baseOutputDirectory gets <job dir>/output/.
//
// A pythonPackageSpec pool runs in container mode too, as on Vertex: at
// Submit(), once per job, its packageUris (paths, file:// and gs:// read as
// /gcs/...; sdists and wheels) are pip-installed into its executorImageUri
// by the packager, the image kept in the local image store and reused while
// executor and packages are unchanged (internal/python_package_image.h);
// then each replica runs `python3 -m <pythonModule> <args>` with
// pythonPackageSpec.env and the cluster env.
//
// States: QUEUED (record created) -> PENDING (ports and env being prepared)
// -> RUNNING (from the first replica's start) -> SUCCEEDED | FAILED | CANCELLING -> CANCELLED.
//   SUCCEEDED  every replica of pools 0 (chief), 1 (workers) and 3
//              (evaluators) exited 0. Parameter servers (pool 2) serve until
//              the job ends, so they are then stopped (SIGTERM, SIGKILL after
//              the grace period) and their exit status is not judged.
//   FAILED     a replica exited non-zero or was killed by a signal (code 3,
//              "The replica workerpool1-0 exited with a non-zero status of 3.
//              To find out more ... check the logs: <job dir>/logs/workerpool1-0.log"),
//              could not be started (code 3), or scheduling.timeout passed
//              (code 4). The other replicas are stopped. With
//              scheduling.restartJobOnWorkerRestart a replica failure first
//              restarts every replica, at most 3 times (sdk/internal/restart_policy.h).
//   CANCELLED  Cancel() (here or via JobClient::CancelJob): code 1 "CANCELLED".
// Stopping sends SIGTERM to each replica's process group and SIGKILL after
// the grace period; when a replica's main process exits, the rest of its
// process group is killed, and replicas die with the supervising thread
// (PR_SET_PDEATHSIG). So no process outlives the job, except one that left
// its replica's process group on purpose (setsid/setpgid). In container
// mode the signals go to runc, which forwards SIGTERM to the container's
// init; once runc has exited the container is deleted (runc delete
// --force). When the supervising process dies (SIGKILL too), its watchdog
// deletes its containers and the job's network namespace within moments
// (packager/run/host_resource_ledger.h); the next JobClient that reads the
// job records it as failed.
//
// The job is recorded in the job store (job_store.h) so other processes can
// list, inspect and cancel it (job_client.h).
//
// With `backend = JobBackendKind::kVertex` the same job runs on Vertex AI (or
// on anything speaking its REST v1 API, e.g. `trainpkg serve`): Submit()
// creates the CustomJob there (the service assigns the id and name), then a
// background thread polls it with growing intervals and writes the Python
// SDK's state lines; Wait() returns the terminal job as the service reports
// it, or the error that stopped polling; Cancel() and Kill() ask the service
// to cancel. Images are not checked locally, and nothing is recorded in the
// local job store. Destroying the last copy stops polling; the job goes on.
//
// With `backend = JobBackendKind::kK8s` the job runs on the Kubernetes
// cluster of a kubeconfig as a JobSet, TFJob or PyTorchJob
// (sdk/k8s/job_manifests.h says what is rendered). Create() reads the
// kubeconfig, resolves registry credentials and renders the manifests;
// Submit() creates them (the objects are named job_id: options.job_id, which
// must then be a DNS-1035 label, or "tp-<numeric id>"); a background thread
// polls the workload, writes the state lines and, once it is terminal, every
// pod's log; Cancel() and Kill() delete the workload. Nothing is recorded in
// the local job store. Destroying the last copy stops polling; the job goes on.
//
// With `backend = JobBackendKind::kSlurm` the same job runs on a Slurm
// cluster (sdk/slurm/slurm_backend_options.h, docs/adr/2026-11-24-slurm-backend.md):
// Submit() records it in the job store like a local job, then sbatch
// submits one heterogeneous job with a component per worker pool (a plain
// job for one pool; machineSpec mapped to --cpus-per-task, --mem-per-cpu,
// --gpus-per-task), whose batch script starts one srun step per pool. Each
// replica is a Slurm task running the pool's "local:" executable (on a
// filesystem every node shares) with the environment Vertex injects; its
// output lands in the job store's logs/. States follow scontrol: PENDING
// while Slurm queues the job, RUNNING once it runs, SUCCEEDED, FAILED
// (naming the replica that failed first, as above) or CANCELLED. Cancel()
// and Kill() run scancel; so does a cancel request through the job store.
// The job store home must be on the shared filesystem. With
// SlurmBackendOptions::submit = kSalloc the same script is salloc's command
// on this host instead (the job starts at once when the resources are free,
// not at Slurm's next scheduling pass).
//
// With `backend = JobBackendKind::kSsh` the replicas run on a list of hosts
// through the system's OpenSSH client (sdk/ssh/ssh_backend_options.h,
// docs/adr/2026-11-28-ssh-backend.md): placed in pool order over the hosts'
// slots (chief first), each a "local:" executable copied to (or, without
// copying, found at the same path on) its host, with the environment Vertex
// injects naming the hosts' addresses and ports free on each host. Recorded
// and supervised here like a local job: logs in the job store, FAILED
// naming "<replica>@<host>", cancel stopping every replica's process group
// on its host; a host that cannot be reached fails the job before any
// replica starts; a lost connection stops that host's replicas.
#ifndef TRAINPKG_SDK_CUSTOM_JOB_H_
#define TRAINPKG_SDK_CUSTOM_JOB_H_

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/clock.h"
#include "jobspec/custom_job.h"
#include "sdk/custom_job_connection.h"
#include "sdk/k8s/k8s_backend_options.h"
#include "sdk/process_launcher.h"
#include "sdk/slurm/slurm_backend_options.h"
#include "sdk/ssh/ssh_backend_options.h"
#include "sdk/vertex/vertex_backend_options.h"

namespace trainpkg::sdk {

enum class JobBackendKind { kLocal, kVertex, kK8s, kSlurm, kSsh };

struct CustomJobOptions {
  // Where the job runs: kLocal (this machine), kVertex (`vertex` below),
  // kK8s (a Kubernetes cluster, `k8s` below), kSlurm (`slurm` below) or
  // kSsh (hosts over SSH, `ssh` below).
  JobBackendKind backend = JobBackendKind::kLocal;
  vertex::VertexBackendOptions vertex;
  k8s::K8sBackendOptions k8s;
  slurm::SlurmBackendOptions slurm;
  ssh::SshBackendOptions ssh;
  // Job store home; "" means $TRAINPKG_HOME, else $HOME/.trainpkg (read
  // from `environment`).
  std::filesystem::path home;
  // Receives the Python-SDK-like state lines ("Creating CustomJob", ...) and,
  // when stream_replica_output, every replica output line prefixed
  // "[workerpool1-0] ". Not owned; must outlive the job. Lines are written
  // whole, under a lock. nullptr: silent.
  std::ostream* log_stream = nullptr;
  bool stream_replica_output = true;
  // Time between SIGTERM and SIGKILL when replicas are stopped.
  absl::Duration cancel_grace_period = absl::Seconds(10);
  // Local backend, container mode: replicas share the host's network (and
  // reach every service on it, 127.0.0.1 included) instead of a network
  // namespace of the job's own that holds only loopback. An opt-in for
  // jobs that must reach host services (docs/adr/2026-11-27-container-isolation.md).
  bool host_network = false;
  std::string project_id = "local";  // the "projects/<p>" of the resource name
  std::string location = "local";    // the "locations/<l>" of the resource name
  // "" generates a numeric id like Vertex's (epoch millis + 3 random digits;
  // kK8s: "tp-<numeric id>"); otherwise it must pass the backend's job id
  // rule (BackendDriver::CheckJobId): jobspec::ValidateJobId for kLocal and
  // kSlurm, a DNS-1035 label for kK8s; kVertex takes none (the service
  // assigns the id).
  std::string job_id;
  // Seams. The environment replicas inherit (and home is read from); nullopt
  // means this process's environment, read at Create().
  std::optional<std::map<std::string, std::string>> environment;
  std::shared_ptr<ProcessLauncher> launcher;  // nullptr: DefaultProcessLauncher()
  // The jobs' create/update/start/end times and generated ids (and an
  // HP-tuning study's times and polls). Not owned; must outlive the job.
  // nullptr: base::RealClock().
  base::Clock* clock = nullptr;
};

// A handle to one job. Copies share the job. All methods are thread-safe.
// Destroying the last copy of a submitted, unfinished job cancels it and
// waits for the replicas to stop.
class CustomJob {
 public:
  // A job that forwards every call to `connection`: how tests of code that
  // submits jobs run none (sdk/custom_job_connection.h). Create() builds
  // the connection of options.backend's driver (sdk/backend_driver.h).
  // REQUIRES: connection is not null.
  explicit CustomJob(std::shared_ptr<CustomJobConnection> connection);

  // Validates `job` (jobspec::ValidateCustomJob, the job id, and that every
  // pool has a containerSpec) before anything runs: InvalidArgument listing
  // each field path and reason; a job id the backend does not take is
  // InvalidArgument "job_id: ..." (the backend's rule: jobspec::ValidateJobId
  // locally and on Slurm, a DNS-1035 label on Kubernetes, none at all on
  // Vertex AI, which assigns it).
  // Nothing is written or started. kVertex: only
  // ValidateCustomJob, plus InvalidArgument without project or location and
  // the credential file errors of ADC (sdk/auth/google_default_credentials.h).
  // kK8s: ValidateCustomJob, then the errors of k8s::PrepareK8sSubmission
  // (kubeconfig, registry credentials, what a cluster cannot run).
  // kSlurm: as local, plus InvalidArgument for a machine type without a
  // Slurm mapping, Unimplemented for container images, NotFound when the
  // task launcher (options.slurm.task_program) is missing.
  // kSsh: as local, plus InvalidArgument when the hosts give fewer slots
  // than the job has replicas, Unimplemented for pythonPackageSpec pools,
  // NotFound when the ssh program is missing. (A host without the same
  // trainpkg for container images fails the job, FAILED_PRECONDITION, before
  // any replica starts: sdk/ssh/ssh_backend_options.h.)
  static absl::StatusOr<CustomJob> Create(jobspec::CustomJob job, CustomJobOptions options = {});

  // Submit() then Wait(). A job that FAILED or was CANCELLED is a value with
  // `error` set, not an error Status.
  absl::StatusOr<jobspec::CustomJob> Run();

  // Records the job (QUEUED) and starts it in the background. Errors: NotFound
  // / PermissionDenied when an executable is missing or not executable,
  // PreparePythonPackageImages' (an executor without python3, a package
  // that is missing or not an sdist or wheel, a failed pip install: nothing
  // recorded then),
  // AlreadyExists when the job id is taken, store errors when the job store
  // is not writable, FailedPrecondition when already submitted.
  absl::Status Submit();

  // Blocks until the job is terminal and returns it. FailedPrecondition
  // before Submit().
  absl::StatusOr<jobspec::CustomJob> Wait();

  // Stops the job: CANCELLING, replicas get SIGTERM, SIGKILL after the grace
  // period, then CANCELLED. Idempotent; no effect before Submit() or once the
  // job is terminal.
  void Cancel();
  // Like Cancel() but without the grace period: SIGKILL right away.
  void Kill();

  // The job as it is now (state, times, error).
  jobspec::CustomJob job() const;
  // kK8s: resource_name() is "namespaces/<ns>/<kind>s/<job_id>".
  // kVertex: "" until Submit() returned (the service assigns them); do not
  // call these concurrently with Submit().
  const std::string& job_id() const;
  const std::string& resource_name() const;  // projects/<p>/locations/<l>/customJobs/<id>
  // kVertex: the job's record in the job store once Submit() returned, empty
  // when it could not be recorded.
  const std::filesystem::path& job_dir() const;

 private:
  std::shared_ptr<CustomJobConnection> connection_;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_CUSTOM_JOB_H_
