#include "sdk/cli/serve_command.h"

#include <signal.h>

#include "absl/strings/str_join.h"
#include "base/environment.h"
#include "fmt/format.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/signal_watcher.h"
#include "sdk/job_store.h"
#include "sdk/serve/job_http_server.h"
#include "sdk/serve/local_job_service.h"
#include "sdk/serve/serve_token_file.h"
#include "sdk/vertex/local_serve_token.h"

namespace trainpkg::cli {

CLI::App* AddServeCommand(CLI::App& app, ServeFlags& flags) {
  CLI::App* serve = app.add_subcommand(
      "serve", "Serve the Vertex AI REST v1 customJobs and hyperparameterTuningJobs API locally");
  serve->footer(
      "Jobs created through the service run on this machine like `trainpkg run` jobs and are "
      "recorded in the job store, so `trainpkg jobs` sees them. Ctrl-C stops the service and "
      "cancels the jobs it started.\n\n"
      "Access: only loopback addresses are served. Each start makes a new random token; every "
      "request must carry the header `Authorization: Bearer <token>` (printed at start). While "
      "serve runs the token is also in $TRAINPKG_HOME/serve/<host>_<port>.token (else "
      "~/.trainpkg/serve/...; mode 0600, removed at exit), where `trainpkg run --backend vertex "
      "--endpoint http://127.0.0.1:PORT`, `trainpkg jobs` and the C++ sdk find it. Requests "
      "with another Host than this address, a foreign Origin (web pages), a Content-Encoding, "
      "chunked bodies, bodies over 1 MiB and bodies that are not application/json are refused.\n\n"
      "Dashboard: the printed URL <endpoint>/ui/?token=<token> opens pages of jobs, replicas, live "
      "logs, training curves and tuning trials; the browser keeps a cookie (HttpOnly, "
      "SameSite=Strict) that opens only the dashboard, whose one action is cancelling a job.\n\n"
      "Images: a job may run images from the local image store (`trainpkg build -t`, `trainpkg "
      "pull`) and oci:DIR[:TAG] layouts. local:PATH executables run on the host outside any "
      "container and are refused unless --allow-local-executables is given; an image that would "
      "be pulled is refused unless its registry is named with --allow-registry.");
  serve->add_option("--host", flags.host, "Loopback address to listen on")->capture_default_str();
  serve->add_option("--port", flags.port, "Port to listen on (0: a free port)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  serve->add_flag("--allow-local-executables", flags.allow_local_executables,
                  "Run jobs whose imageUri is local:PATH (a host executable, run as this user "
                  "outside any container)");
  serve->add_option("--allow-registry", flags.allowed_registries,
                    "Pull images that are not in the local image store from this registry, "
                    "HOST[:PORT] as written in the image reference (docker.io for Docker Hub); "
                    "repeatable");
  serve
      ->add_option("--max-running-jobs", flags.max_running_jobs,
                   "Run at most this many customJobs (and as many hyperparameterTuningJobs) at "
                   "once; more are refused with 429 RESOURCE_EXHAUSTED")
      ->capture_default_str()
      ->check(CLI::Range(1, 10000));
  return serve;
}

int ServeCommand(const ServeFlags& flags, std::ostream& out, std::ostream& err) {
  // Blocked before any thread starts: the server's threads never take
  // SIGINT or SIGTERM, and sigwait below receives them.
  BlockTerminationSignals();
  ::signal(SIGPIPE, SIG_IGN);
  std::map<std::string, std::string> environment = base::SnapshotProcessEnvironment();
  absl::StatusOr<std::filesystem::path> home =
      sdk::DefaultJobStoreHome(base::MapEnvironment(environment));
  if (!home.ok()) return ReportError(err, home.status(), kExitFailed);
  absl::StatusOr<std::string> token = sdk::serve::GenerateServeToken();
  if (!token.ok()) return ReportError(err, token.status(), kExitFailed);
  const sdk::serve::ImagePolicy images{.allow_local_executables = flags.allow_local_executables,
                                       .allowed_registries = flags.allowed_registries};
  sdk::serve::LocalJobServiceOptions job_options;
  job_options.home = *home;
  job_options.environment = environment;
  job_options.images = images;
  job_options.max_running_jobs = flags.max_running_jobs;
  sdk::serve::LocalJobService service(std::move(job_options));
  sdk::serve::LocalTuningJobServiceOptions tuning_options;
  tuning_options.home = *home;
  tuning_options.environment = environment;
  tuning_options.images = images;
  tuning_options.max_running_jobs = flags.max_running_jobs;
  sdk::serve::LocalTuningJobService tuning(tuning_options);
  absl::StatusOr<std::unique_ptr<sdk::serve::JobHttpServer>> server =
      sdk::serve::JobHttpServer::Start(
          service, &tuning,
          {.host = flags.host,
           .port = flags.port,
           .token = *token,
           .token_home = *home,
           .dashboard_home = *home});
  if (!server.ok()) return ReportError(err, server.status(), kExitFailed);
  // After binding: the file is named by the port, which --port 0 only
  // learns from the bind.
  absl::StatusOr<sdk::serve::ServeTokenFile> token_file = sdk::serve::ServeTokenFile::Write(
      sdk::vertex::LocalServeTokenPath(*home, flags.host, (*server)->port()), *token);
  if (!token_file.ok()) return ReportError(err, token_file.status(), kExitFailed);
  const std::string endpoint = (*server)->endpoint();
  out << fmt::format(
             "Serving Vertex AI REST v1 customJobs at {endpoint}/v1/projects/*/locations/*/"
             "customJobs\n"
             "and hyperparameterTuningJobs at {endpoint}/v1/projects/*/locations/*/"
             "hyperparameterTuningJobs\n"
             "Jobs run on this machine and are recorded in {home}\n"
             "local: executables are {local}; images not in the local store are pulled from "
             "{pull}\n"
             "Every request needs the header\n"
             "  Authorization: Bearer {token}\n"
             "(the token is also in {file} while serve runs)\n"
             "Submit to it with:\n"
             "  curl -H 'Authorization: Bearer {token}' "
             "{endpoint}/v1/projects/local/locations/local/customJobs\n"
             "  trainpkg run --backend vertex --project local --region local "
             "--endpoint {endpoint} --config job.yaml   (reads the token file)\n"
             "  or from C++: CustomJobOptions{{.backend = JobBackendKind::kVertex}} with "
             "vertex.endpoint = \"{endpoint}\" (reads the token file)\n"
             "Dashboard (jobs, logs, curves, tuning trials) in a browser on this machine:\n"
             "  {dashboard}\n"
             "Press Ctrl-C to stop.",
             fmt::arg("endpoint", endpoint), fmt::arg("home", home->string()),
             fmt::arg("dashboard", (*server)->dashboard_url()),
             fmt::arg("token", *token), fmt::arg("file", token_file->path().string()),
             fmt::arg("local", flags.allow_local_executables
                                   ? "allowed (--allow-local-executables)"
                                   : "refused (--allow-local-executables allows them)"),
             fmt::arg("pull", flags.allowed_registries.empty()
                                  ? std::string("no registry (--allow-registry HOST[:PORT])")
                                  : absl::StrJoin(flags.allowed_registries, ", ")))
      << std::endl;
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int signal = 0;
  sigwait(&set, &signal);
  out << "Stopping: cancelling running jobs" << std::endl;
  (*server)->Stop();
  return kExitOk;
}

}  // namespace trainpkg::cli
