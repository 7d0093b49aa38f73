#include "sdk/cli/serve_command.h"

#include <signal.h>

#include "base/environment.h"
#include "fmt/format.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/signal_watcher.h"
#include "sdk/job_store.h"
#include "sdk/serve/job_http_server.h"
#include "sdk/serve/local_job_service.h"

namespace trainpkg::cli {

CLI::App* AddServeCommand(CLI::App& app, ServeFlags& flags) {
  CLI::App* serve = app.add_subcommand(
      "serve", "Serve the Vertex AI REST v1 customJobs and hyperparameterTuningJobs API locally");
  serve->footer(
      "Jobs created through the service run on this machine like `trainpkg run` jobs "
      "(imageUri local:<absolute path>) and are recorded in the job store, so `trainpkg jobs` "
      "sees them. Any bearer token is accepted; only loopback addresses may be used. Ctrl-C "
      "stops the service and cancels the jobs it started.");
  serve->add_option("--host", flags.host, "Loopback address to listen on")->capture_default_str();
  serve->add_option("--port", flags.port, "Port to listen on (0: a free port)")
      ->capture_default_str()
      ->check(CLI::Range(0, 65535));
  return serve;
}

int ServeCommand(const ServeFlags& flags, std::ostream& out, std::ostream& err) {
  BlockTerminationSignals();
  ::signal(SIGPIPE, SIG_IGN);
  std::map<std::string, std::string> environment = base::SnapshotProcessEnvironment();
  absl::StatusOr<std::filesystem::path> home =
      sdk::DefaultJobStoreHome(base::MapEnvironment(environment));
  if (!home.ok()) return ReportError(err, home.status(), kExitFailed);
  sdk::serve::LocalJobService service(
      {.home = *home, .environment = environment, .launcher = nullptr});
  sdk::serve::LocalTuningJobServiceOptions tuning_options;
  tuning_options.home = *home;
  tuning_options.environment = environment;
  sdk::serve::LocalTuningJobService tuning(tuning_options);
  absl::StatusOr<std::unique_ptr<sdk::serve::JobHttpServer>> server =
      sdk::serve::JobHttpServer::Start(service, &tuning, flags.host, flags.port);
  if (!server.ok()) return ReportError(err, server.status(), kExitFailed);
  const std::string endpoint = (*server)->endpoint();
  out << fmt::format(
             "Serving Vertex AI REST v1 customJobs at {endpoint}/v1/projects/*/locations/*/"
             "customJobs\n"
             "and hyperparameterTuningJobs at {endpoint}/v1/projects/*/locations/*/"
             "hyperparameterTuningJobs\n"
             "Jobs run on this machine and are recorded in {home}\n"
             "Submit to it with:\n"
             "  CLOUDSDK_AUTH_ACCESS_TOKEN=local trainpkg run --backend vertex --project local "
             "--region local --endpoint {endpoint} --config job.yaml\n"
             "  or from C++: CustomJobOptions{{.backend = JobBackendKind::kVertex}} with "
             "vertex.endpoint = \"{endpoint}\" and AccessTokenCredentials\n"
             "Press Ctrl-C to stop.",
             fmt::arg("endpoint", endpoint), fmt::arg("home", home->string()))
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
