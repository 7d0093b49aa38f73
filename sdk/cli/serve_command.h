// `trainpkg serve`: a local job service speaking Vertex AI's REST v1
// customJobs API on a loopback address, running jobs with the local backend
// and recording them in the job store. Every request needs the instance's
// bearer token (printed at start, and kept in the trainpkg home for local
// clients while serve runs).
#ifndef TRAINPKG_SDK_CLI_SERVE_COMMAND_H_
#define TRAINPKG_SDK_CLI_SERVE_COMMAND_H_

#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

struct ServeFlags {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: a free port
  bool allow_local_executables = false;
  std::vector<std::string> allowed_registries;  // --allow-registry HOST[:PORT]
  int max_running_jobs = 16;
};

CLI::App* AddServeCommand(CLI::App& app, ServeFlags& flags);

// Serves until SIGINT or SIGTERM, then cancels the jobs it started, removes
// its token file and returns 0; 1 when it cannot listen, the job store home
// is unknown or the token file cannot be written. Must run before any other
// thread is started (it blocks the signals).
int ServeCommand(const ServeFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_SERVE_COMMAND_H_
