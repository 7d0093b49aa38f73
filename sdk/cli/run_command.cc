#include "sdk/cli/run_command.h"

#include <signal.h>

#include <filesystem>

#include "base/environment.h"
#include "base/status_macros.h"
#include "base/terminal_text.h"
#include "jobspec/custom_job_json.h"
#include "sdk/autopackage.h"
#include "sdk/backend_table.h"
#include "sdk/cli/detach.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/scale_tier_flags.h"
#include "sdk/cli/signal_watcher.h"
#include "sdk/custom_job.h"
#include "sdk/job_store.h"

namespace trainpkg::cli {
namespace {

int RunForeground(sdk::CustomJob job, std::ostream& err, bool remote) {
  if (absl::Status status = job.Submit(); !status.ok()) {
    // A service refusing the job is not a usage error of ours.
    return ReportError(
        err, status,
        remote && status.code() != absl::StatusCode::kInvalidArgument ? kExitFailed : kExitUsage);
  }
  absl::StatusOr<jobspec::CustomJob> done = WaitCancellingOnSignals(job);
  if (!done.ok()) return ReportError(err, done.status(), kExitFailed);
  return ExitCodeForState(done->state);
}

// The job lives on the service or cluster: creating it is all --detach has to do.
int SubmitDetachedRemotely(sdk::CustomJob& job, std::ostream& out, std::ostream& err) {
  if (absl::Status status = job.Submit(); !status.ok())
    return ReportError(err, status, kExitFailed);
  out << base::TerminalSafe(job.resource_name()) << std::endl;
  return kExitOk;
}

// gcloud's autopackaging: the image of the first --worker-pool-spec's
// local-package-path, built (or found) and, with output-image-uri, pushed;
// every pool then runs it.
absl::Status BuildAutopackagedImage(const jobspec::Autopackaging& spec, bool remote,
                                    jobspec::CustomJob& job, std::ostream& log) {
  if (remote && spec.output_image_uri.empty()) {
    return absl::InvalidArgumentError(
        "--worker-pool-spec #1: local-package-path needs output-image-uri=REGISTRY/REPO[:TAG] "
        "with this backend (as gcloud pushes the image it builds): the service pulls the image "
        "from a registry, not from this machine's store");
  }
  std::error_code ec;
  std::filesystem::path cwd = std::filesystem::current_path(ec);
  if (ec) return absl::InternalError(absl::StrCat("reading the current directory: ", ec.message()));
  TP_ASSIGN_OR_RETURN(std::filesystem::path home,
                      sdk::DefaultJobStoreHome(base::ProcessEnvironment()));
  TP_ASSIGN_OR_RETURN(sdk::AutopackagedImage image,
                      sdk::Autopackage(spec, sdk::AutopackageOptions{
                                                 .home = home,
                                                 .cwd = cwd,
                                                 .environment = base::SnapshotProcessEnvironment(),
                                                 .log =
                                                     [&log](std::string_view line) {
                                                       log << base::TerminalSafe(line) << std::endl;
                                                     },
                                                 .registry = nullptr,
                                             }));
  jobspec::SetAutopackagedImage(job.job_spec.worker_pool_specs, image.image_uri);
  return absl::OkStatus();
}

}  // namespace

void AddJobSpecFlags(CLI::App& command, RunFlags& flags) {
  command.add_option("--config", flags.config,
                     "Job file (YAML or JSON): a CustomJob or a CustomJobSpec, as gcloud takes it");
  command
      .add_option("--worker-pool-spec", flags.worker_pool_specs,
                  "A worker pool, gcloud syntax: machine-type=M,replica-count=N, then "
                  "container-image-uri=local:PATH (or an image), or "
                  "executor-image-uri=IMAGE,python-module=MODULE (with --python-package-uris), "
                  "or, in the first flag only, gcloud's autopackaging: "
                  "local-package-path=DIR,executor-image-uri=IMAGE and python-module=MODULE or "
                  "script=FILE (in DIR), optionally requirements=A;B (pip specifiers), "
                  "extra-packages=A;B (sdists/wheels in DIR), extra-dirs=A;B (in DIR), "
                  "output-image-uri=REF (push there; needed by --backend vertex and k8s): the "
                  "image is built FROM IMAGE with DIR's code and every pool runs it (the other "
                  "flags then give only hardware keys). "
                  "Repeat for pools 1, 2, 3; --worker-pool-spec= is an empty pool")
      ->take_all();
  command.add_option("--display-name", flags.display_name, "Display name of the job");
  command.add_option("--base-output-dir", flags.base_output_dir,
                     "baseOutputDirectory (default <job dir>/output/); sets AIP_MODEL_DIR etc.");
  command
      .add_option("--args", flags.args,
                  "Comma-separated arguments appended to every pool's containerSpec.args (or "
                  "pythonPackageSpec.args)")
      ->delimiter(',');
  command
      .add_option("--command", flags.command,
                  "Comma-separated command replacing every pool's entrypoint")
      ->delimiter(',');
  command
      .add_option("--python-package-uris", flags.python_package_uris,
                  "Comma-separated Python packages (sdist *.tar.gz or wheel *.whl: paths, "
                  "file:// or gs:// read as /gcs/...) added to every pool's "
                  "pythonPackageSpec.packageUris")
      ->delimiter(',');
  command.add_option("--labels", flags.labels, "Comma-separated KEY=VALUE labels")->delimiter(',');
  command.add_option("--job-id", flags.job_id,
                     "Job id (letters, digits, underscores; starts with a letter; for k8s a "
                     "DNS label: lowercase letters, digits, '-'). Default: a numeric id "
                     "(k8s: tp-<numeric id>)");
  AddScaleTierFlags(command, flags);
}

CLI::App* AddRunCommand(CLI::App& app, RunFlags& flags, BackendFlags& backend) {
  CLI::App* run = app.add_subcommand(
      "run", "Run a CustomJob locally, on Vertex AI, on Kubernetes or on Slurm and wait for it");
  run->footer(
      "Each replica of each worker pool runs the executable of its imageUri \"local:<path>\" as a "
      "process (a relative path is resolved against the current directory), or, for any other "
      "imageUri (a registry reference, pulled into the local image store when absent, or "
      "oci:DIR[:TAG]), as a runc container of that image (needs root), with the environment "
      "Vertex AI sets (CLUSTER_SPEC, TF_CONFIG, AIP_*, CLOUD_ML_*). Containers get a network "
      "namespace of the job's own holding only loopback (replicas reach each other, nothing "
      "else: --host-network opts out), the replica's name as host name, a seccomp filter and "
      "nosuid,nodev mounts (docs/SECURITY.md). A pythonPackageSpec pool (or "
      "executor-image-uri=,python-module= with --python-package-uris) runs locally as on Vertex: "
      "its packages are pip-installed into its executor image once (an image kept in the local "
      "store and reused while executor and packages are unchanged), then each replica runs "
      "`python3 -m MODULE ARGS` in a container of it. With local-package-path (gcloud's "
      "autopackaging) the image is built as `gcloud ai custom-jobs create` builds it: FROM "
      "executor-image-uri, WORKDIR /usr/app, setup.py's and requirements.txt's dependencies, "
      "extra-packages and requirements pip-installed, extra-dirs and the main file's directory "
      "copied, ENTRYPOINT `python3 -m MODULE` (or `python3 SCRIPT`, `/bin/bash SCRIPT`); it is "
      "kept in the local store, tagged by what went in (the same inputs build nothing), and "
      "--args go to the trainer. Example: trainpkg run "
      "--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri=REGISTRY/trainpkg/"
      "pytorch-cpu:bookworm,local-package-path=.,python-module=trainer.task "
      "--worker-pool-spec=machine-type=n1-standard-4,replica-count=2 --args=--epochs=30. "
      "Ctrl-C cancels the job; a "
      "second Ctrl-C kills it. With --backend k8s the job runs on the kubeconfig's cluster as a "
      "JobSet (or --k8s-kind tfjob / pytorchjob) and Ctrl-C deletes it; `trainpkg k8s render` "
      "prints those objects without a cluster. With --backend slurm each replica is a Slurm task "
      "running the same executable, which must be on a filesystem every node shares, as must "
      "$TRAINPKG_HOME; trainpkg-slurm-task (beside trainpkg) starts it.\nExit code: 0 "
      "succeeded, 1 failed, 130 cancelled, 2 invalid job (nothing ran).");
  AddJobSpecFlags(*run, flags);
  run->add_flag("--detach", flags.detach,
                "Start the job in a background supervisor, print its id and return");
  run->add_flag("--validate-only", flags.validate_only,
                "Validate, print the job as JSON and exit without running it");
  run->add_flag("--quiet", flags.quiet, "Do not stream the replicas' output");
  run->add_flag("--host-network", flags.host_network,
                "Local containers share this machine's network, 127.0.0.1 services included, "
                "instead of a network namespace of the job's own (loopback only)");
  AddBackendFlags(*run, backend);
  return run;
}

int RunCommand(const RunFlags& flags, const BackendFlags& backend, std::ostream& out,
               std::ostream& err) {
  // First, before any thread exists: every thread inherits the mask, so only
  // the SignalWatcher takes SIGINT and SIGTERM and turns them into a cancel.
  BlockTerminationSignals();
  // Output piped into a reader that quits (`| head`) gives EPIPE errors
  // instead of killing the job's supervisor.
  ::signal(SIGPIPE, SIG_IGN);
  absl::StatusOr<FlagJob> flag_job = JobFromFlags(flags, absl::Now());
  if (!flag_job.ok()) return ReportError(err, flag_job.status(), kExitUsage);
  jobspec::CustomJob* spec = &flag_job->job;
  sdk::CustomJobOptions options;
  options.job_id = flags.job_id;
  options.log_stream = flags.detach ? nullptr : &out;
  options.stream_replica_output = !flags.quiet;
  options.host_network = flags.host_network;
  if (absl::Status status = ApplyBackendFlags(backend, base::ProcessEnvironment(), options);
      !status.ok()) {
    return ReportError(err, status, kExitUsage);
  }
  // The backend's job id rule, as CustomJob::Create applies it, checked
  // before anything is built.
  const sdk::BackendDriver& driver = sdk::BackendDriverFor(options.backend);
  if (!flags.job_id.empty()) {
    if (absl::Status status = driver.CheckJobId(flags.job_id); !status.ok()) {
      return ReportError(err,
                         absl::InvalidArgumentError(absl::StrCat("--job-id: ", status.message())),
                         kExitUsage);
    }
  }
  // Remote jobs live on the service or cluster; local and Slurm ones have a
  // supervisor here and a record in the job store.
  const bool remote = driver.remote().has_value();
  if (flag_job->autopackaging.has_value()) {
    absl::Status status = BuildAutopackagedImage(*flag_job->autopackaging, remote, flag_job->job,
                                                 flags.detach ? err : out);
    if (!status.ok()) return ReportError(err, status, kExitUsage);
  }
  absl::StatusOr<sdk::CustomJob> job = sdk::CustomJob::Create(*spec, std::move(options));
  if (!job.ok()) return ReportError(err, job.status(), kExitUsage);
  if (flags.validate_only) {
    out << base::TerminalSafe(jobspec::FormatCustomJobJson(*spec), base::TextLayout::kJson);
    return kExitOk;
  }
  if (flags.detach && remote) return SubmitDetachedRemotely(*job, out, err);
  if (flags.detach) return RunDetached(*std::move(job), out, err);
  return RunForeground(*std::move(job), err, remote);
}

}  // namespace trainpkg::cli
