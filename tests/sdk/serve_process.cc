#include "tests/sdk/serve_process.h"

#include <signal.h>

#include <cstdio>
#include <fstream>
#include <regex>

#include "absl/strings/numbers.h"
#include "base/file_util.h"
#include "tests/sdk/sdk_test_util.h"

namespace trainpkg::sdk::testing {

absl::StatusOr<ServeProcess> StartServe(const std::string& trainpkg,
                                        const std::filesystem::path& home,
                                        const std::filesystem::path& out,
                                        const std::vector<std::string>& args) {
  std::vector<std::string> argv = {trainpkg, "serve", "--port", "0"};
  argv.insert(argv.end(), args.begin(), args.end());
  ServeProcess serve;
  serve.home = home;
  serve.out = out;
  serve.pid = SpawnWithOutput(std::move(argv), out, {{"TRAINPKG_HOME", home.string()}});
  if (serve.pid <= 0) return absl::InternalError("cannot start trainpkg serve");
  const std::regex endpoint(R"((http://127\.0\.0\.1:([0-9]+))/v1/)");
  const std::regex token(R"(Authorization: Bearer ([A-Za-z0-9_-]+))");
  std::string text;
  bool up = WaitFor(
      [&] {
        text = base::ReadFile(out).value_or("");
        std::smatch e, t;
        if (!std::regex_search(text, e, endpoint) || !std::regex_search(text, t, token)) {
          return false;
        }
        serve.endpoint = e[1].str();
        serve.token = t[1].str();
        return absl::SimpleAtoi(e[2].str(), &serve.port);
      },
      absl::Seconds(10));
  if (!up) {
    ::kill(serve.pid, SIGKILL);
    WaitExitCode(serve.pid);
    return absl::InternalError("trainpkg serve did not come up:\n" + text);
  }
  return serve;
}

int StopServe(const ServeProcess& serve) {
  ::kill(serve.pid, SIGTERM);
  return WaitExitCode(serve.pid);
}

long PeakRssKib(pid_t pid) {
  std::ifstream status("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(status, line)) {
    long kib = 0;
    if (line.starts_with("VmHWM:") && absl::SimpleAtoi(line.substr(6, line.find("kB") - 6), &kib)) {
      return kib;
    }
  }
  return -1;
}

HttpReply Curl(const std::string& args) {
  std::string output;
  FILE* pipe = popen(("curl -sS -w '\\n%{http_code}' " + args).c_str(), "r");
  if (pipe == nullptr) return {};
  char buffer[4096];
  size_t n = 0;
  while ((n = fread(buffer, 1, sizeof(buffer), pipe)) > 0) output.append(buffer, n);
  pclose(pipe);
  HttpReply reply;
  size_t newline = output.rfind('\n');
  if (newline == std::string::npos) return reply;
  if (!absl::SimpleAtoi(output.substr(newline + 1), &reply.status)) reply.status = 0;
  reply.body = output.substr(0, newline);
  return reply;
}

}  // namespace trainpkg::sdk::testing
