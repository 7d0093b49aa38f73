// A real CNCF distribution registry (Debian's docker-registry) for the
// integration tests: started on 127.0.0.1 with a free port, optionally with
// htpasswd basic auth and TLS (a fresh self-signed certificate in a docker
// style certs.d directory), and stopped by pid.
#ifndef TRAINPKG_TESTS_REGISTRY_REGISTRY_SERVER_H_
#define TRAINPKG_TESTS_REGISTRY_REGISTRY_SERVER_H_

#include <sys/types.h>

#include <filesystem>
#include <optional>
#include <string>

#include "absl/status/status.h"

namespace trainpkg::registry::testing {

// The registry's own token authentication (distribution's `auth: token:`):
// clients get a bearer token from `realm`; tokens must come from `issuer`,
// name `service` as audience and be signed by a key whose certificate
// chains to a certificate in `root_cert_bundle`.
struct RegistryTokenAuth {
  std::string realm;
  std::string service;
  std::string issuer;
  std::filesystem::path root_cert_bundle;
};

struct RegistryServerOptions {
  std::string htpasswd_user{};  // non-empty: require basic auth
  std::string htpasswd_password{};
  bool tls = false;
  bool relative_urls = false;                // Location headers without scheme://host
  std::optional<RegistryTokenAuth> token{};  // used when htpasswd_user is empty
};

class RegistryServer {
 public:
  RegistryServer() = default;
  ~RegistryServer();  // Stop()
  RegistryServer(const RegistryServer&) = delete;
  RegistryServer& operator=(const RegistryServer&) = delete;

  // Writes the config (and htpasswd file, certificate), starts the server and
  // waits until it accepts connections (10 s at most).
  absl::Status Start(const RegistryServerOptions& options);
  // SIGTERM, then SIGKILL after 5 s; removes the scratch directory.
  void Stop();

  // "127.0.0.1:<port>".
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
  // Holds "<host>/ca.crt" when started with TLS.
  std::filesystem::path certs_dir() const { return dir_ / "certs.d"; }
  const std::filesystem::path& dir() const { return dir_; }
  std::string Log() const;

 private:
  std::filesystem::path dir_;
  int port_ = 0;
  pid_t pid_ = -1;
};

}  // namespace trainpkg::registry::testing

#endif  // TRAINPKG_TESTS_REGISTRY_REGISTRY_SERVER_H_
