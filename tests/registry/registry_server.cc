#include "tests/registry/registry_server.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <fstream>
#include <random>

#include "absl/time/clock.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "base/subprocess.h"
#include "fmt/format.h"
#include "tests/registry/run_tool.h"

extern char** environ;

namespace trainpkg::registry::testing {
namespace {

absl::StatusOr<int> FreePort() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0 ||
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) {
    ::close(fd);
    return base::ErrnoToStatus(errno, "reserving a port");
  }
  ::close(fd);
  return ntohs(addr.sin_port);
}

bool Accepts(int port) {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

RegistryServer::~RegistryServer() { Stop(); }

absl::Status RegistryServer::Start(const RegistryServerOptions& options) {
  dir_ = std::filesystem::temp_directory_path() /
         fmt::format("trainpkg-registry-{}-{}", ::getpid(), std::random_device{}());
  std::filesystem::create_directories(dir_ / "data");
  TP_ASSIGN_OR_RETURN(port_, FreePort());
  std::string config = fmt::format(R"(version: 0.1
log: {{level: info}}
storage:
  filesystem: {{rootdirectory: {}}}
  delete: {{enabled: true}}
http:
  addr: 127.0.0.1:{}
  secret: trainpkg-test-secret
  relativeurls: {}
)",
                                   (dir_ / "data").string(), port_, options.relative_urls);
  if (options.tls) {
    std::filesystem::path cert = dir_ / "cert.pem";
    std::filesystem::path key = dir_ / "key.pem";
    TP_RETURN_IF_ERROR(RunTool({"openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                                "ec_paramgen_curve:prime256v1", "-nodes", "-days", "2", "-keyout",
                                key.string(), "-out", cert.string(), "-subj", "/CN=127.0.0.1",
                                "-addext", "subjectAltName=IP:127.0.0.1,DNS:localhost"})
                           .status());
    std::filesystem::create_directories(certs_dir() / host());
    std::filesystem::copy_file(cert, certs_dir() / host() / "ca.crt");
    config += fmt::format("  tls: {{certificate: {}, key: {}}}\n", cert.string(), key.string());
  }
  if (!options.htpasswd_user.empty()) {
    std::filesystem::path file = dir_ / "htpasswd";
    TP_RETURN_IF_ERROR(RunTool({"htpasswd", "-Bbc", file.string(), options.htpasswd_user,
                                options.htpasswd_password})
                           .status());
    config += fmt::format("auth:\n  htpasswd: {{realm: basic-realm, path: {}}}\n", file.string());
  } else if (options.token.has_value()) {
    config += fmt::format(
        "auth:\n  token: {{realm: \"{}\", service: {}, issuer: {}, rootcertbundle: {}}}\n",
        options.token->realm, options.token->service, options.token->issuer,
        options.token->root_cert_bundle.string());
  }
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(dir_ / "config.yml", config));

  std::optional<std::filesystem::path> exe =
      base::FindInPath("docker-registry", "/usr/local/bin:/usr/bin:/bin");
  if (!exe) return absl::NotFoundError("docker-registry is not installed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  std::string log = (dir_ / "registry.log").string();
  posix_spawn_file_actions_addopen(&actions, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::string exe_str = exe->string(), serve = "serve", cfg = (dir_ / "config.yml").string();
  char* argv[] = {exe_str.data(), serve.data(), cfg.data(), nullptr};
  int rc = posix_spawn(&pid_, exe_str.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    pid_ = -1;
    return base::ErrnoToStatus(rc, "starting docker-registry");
  }
  absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!Accepts(port_)) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return absl::InternalError("docker-registry exited at start:\n" + Log());
    }
    if (absl::Now() > deadline) return absl::DeadlineExceededError("registry did not start");
    absl::SleepFor(absl::Milliseconds(20));
  }
  return absl::OkStatus();
}

void RegistryServer::Stop() {
  if (pid_ > 0) {
    ::kill(pid_, SIGTERM);
    absl::Time deadline = absl::Now() + absl::Seconds(5);
    int status = 0;
    while (::waitpid(pid_, &status, WNOHANG) == 0) {
      if (absl::Now() > deadline) {
        ::kill(pid_, SIGKILL);
        ::waitpid(pid_, &status, 0);
        break;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
    pid_ = -1;
  }
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

std::string RegistryServer::Log() const {
  return base::ReadFile(dir_ / "registry.log").value_or("");
}

}  // namespace trainpkg::registry::testing
