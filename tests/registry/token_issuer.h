// A token server for the registry's `auth: token:` mode, on 127.0.0.1 with a
// free port (distribution docs/spec/auth/token.md and oauth.md):
//   GET  /token?service=&scope=…&account=   Basic credentials or anonymous
//                (a refresh_token in the answer when offline_token=true)
//   POST /token  grant_type=password (username, password; a refresh_token
//                in the answer when access_type=offline) or
//                grant_type=refresh_token (refresh_token)
// Tokens are RS256 JWTs whose header carries the signing certificate in
// `x5c`; that certificate is signed by a test CA created by Start, whose
// certificate is the registry's root bundle. The one user gets every action
// it asks for; anonymous requests get a token granting nothing.
#ifndef TRAINPKG_TESTS_REGISTRY_TOKEN_ISSUER_H_
#define TRAINPKG_TESTS_REGISTRY_TOKEN_ISSUER_H_

#include <atomic>
#include <filesystem>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "tests/registry/registry_server.h"

namespace trainpkg::registry::testing {

struct TokenIssuerOptions {
  std::string username{"tester"};
  std::string password{"s3cret"};
  // Accepted by grant_type=refresh_token; handed out for offline access.
  std::string refresh_token{"refresh-0123456789"};
  bool oauth_post = true;    // false: POST /token answers 404 (GET only)
  int expired_tokens = 0;    // the first N tokens are issued already expired
  int64_t expires_in = 300;  // the "expires_in" answered, in seconds
};

// Thread-safe counters; Start/Stop from one thread.
class TokenIssuer {
 public:
  static constexpr char kService[] = "trainpkg-test-registry";
  static constexpr char kIssuer[] = "trainpkg-test-issuer";

  TokenIssuer();
  ~TokenIssuer();  // Stop()
  TokenIssuer(const TokenIssuer&) = delete;
  TokenIssuer& operator=(const TokenIssuer&) = delete;

  // Creates the CA and the signing key and certificate under `dir` (with the
  // openssl tool) and starts serving.
  absl::Status Start(const std::filesystem::path& dir, const TokenIssuerOptions& options);
  void Stop();

  // What the registry's config needs to trust this issuer.
  RegistryTokenAuth RegistryAuth() const;

  std::atomic<int> gets{0};
  std::atomic<int> posts{0};
  std::atomic<int> refused{0};  // 401 answers (wrong credentials)
  std::atomic<int> issued{0};   // tokens handed out

  // Every scope asked for so far, in order.
  std::vector<std::string> Scopes() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace trainpkg::registry::testing

#endif  // TRAINPKG_TESTS_REGISTRY_TOKEN_ISSUER_H_
