// A `trainpkg serve` started by a test on a free loopback port, and curl
// requests to it.
#ifndef TRAINPKG_TESTS_SDK_SERVE_PROCESS_H_
#define TRAINPKG_TESTS_SDK_SERVE_PROCESS_H_

#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::testing {

struct ServeProcess {
  pid_t pid = -1;
  std::filesystem::path home;  // its TRAINPKG_HOME
  std::filesystem::path out;   // its stdout and stderr
  std::string endpoint;        // "http://127.0.0.1:PORT"
  int port = 0;
  std::string token;  // from the banner's "Authorization: Bearer ..." line
};

// Starts `trainpkg serve --port 0 <args>` with TRAINPKG_HOME=`home`, output
// to `out`, and waits (10 s) for its banner. Internal (with the output) when
// it does not come up.
absl::StatusOr<ServeProcess> StartServe(const std::string& trainpkg,
                                        const std::filesystem::path& home,
                                        const std::filesystem::path& out,
                                        const std::vector<std::string>& args);

// SIGTERM, then its exit code (128 + signal when killed).
int StopServe(const ServeProcess& serve);

// serve's peak resident set size (VmHWM), in KiB; -1 when unreadable.
long PeakRssKib(pid_t pid);

struct HttpReply {
  int status = 0;  // 0 when curl failed
  std::string body;
};

// Runs `curl -sS <args>` (a shell fragment) and returns the HTTP status and body.
HttpReply Curl(const std::string& args);

}  // namespace trainpkg::sdk::testing

#endif  // TRAINPKG_TESTS_SDK_SERVE_PROCESS_H_
