// An HTTP/1.1 proxy for the integration tests that sits between the
// registry client and a real registry on 127.0.0.1 and breaks chosen
// requests the way networks and overloaded registries do: connections
// reset mid-body, 5xx and 429 answers (with Retry-After), stalls past the
// client's timeout, and content or digests changed in flight. Plain
// sockets, a thread per client connection, so a fault can cut a
// connection at any byte. Every request is logged for the tests to count.
#ifndef TRAINPKG_TESTS_REGISTRY_FAULT_PROXY_H_
#define TRAINPKG_TESTS_REGISTRY_FAULT_PROXY_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <optional>
#include <regex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/time/time.h"

namespace trainpkg::registry::testing {

enum class FaultKind {
  // Answers `status` (with Retry-After: `retry_after` when set) without
  // forwarding the request.
  kStatus,
  // Forwards the request head and `after_bytes` of its body, then resets
  // both connections (the registry sees the body end early).
  kResetRequest,
  // Forwards the request whole; the client gets the response head and
  // `after_bytes` of its body, then a reset (nothing at all when 0: the
  // request landed, its answer was lost).
  kResetResponse,
  // With after_bytes == 0: reads the request, forwards nothing and answers
  // nothing for `stall`, then closes. Otherwise forwards it and passes the
  // head and `after_bytes` of the response body before stalling.
  kStall,
  // Forwards the request with its body byte at `after_bytes` changed, so
  // the registry receives other content than the client sent.
  kCorruptRequestBody,
  // Passes the response with its body byte at `after_bytes` changed.
  kCorruptResponseBody,
  // Passes the response with a Docker-Content-Digest naming other content.
  kWrongDigestHeader,
};

struct FaultRule {
  std::string method{};        // "" matches any
  std::string path_pattern{};  // ECMAScript regex, searched in the request target (path?query)
  int occurrence = 1;        // fires on this matching request (1-based); 0: on every one
  FaultKind kind = FaultKind::kStatus;
  int status = 503;
  std::string retry_after{};  // Retry-After header value for kStatus; "" sends none
  uint64_t after_bytes = 0;
  absl::Duration stall = absl::Seconds(6);  // longer than the client's stall timeout
};

// One request the proxy saw, in arrival order.
struct ProxiedRequest {
  std::string method{};
  std::string target{};         // path and query as the client sent them
  std::string content_range{};  // the request's Content-Range, if any
  uint64_t body_bytes = 0;    // request body bytes the client sent (as far as read)
  bool expect_continue = false;  // the client asked for 100 Continue before its body
  int status = 0;             // status the client received; 0 when none did
  std::optional<FaultKind> fault{};
};

// Thread-safe.
class FaultProxy {
 public:
  FaultProxy() = default;
  ~FaultProxy();  // Stop()
  FaultProxy(const FaultProxy&) = delete;
  FaultProxy& operator=(const FaultProxy&) = delete;

  // Listens on 127.0.0.1 (a free port) and forwards to `upstream`
  // ("127.0.0.1:<port>").
  absl::Status Start(const std::string& upstream);
  // Closes every connection, ends stalls and joins the threads.
  void Stop();

  // Rules are checked in the order added; the first that fires applies.
  // Each rule counts its own matches.
  void AddRule(FaultRule rule);
  void ClearRules();

  // "127.0.0.1:<port>".
  std::string host() const { return "127.0.0.1:" + std::to_string(port_); }
  std::vector<ProxiedRequest> requests() const;
  // How many requests with `method` ("" any) had a target matching `pattern`.
  int Count(const std::string& method, const std::string& pattern) const;
  // How many rules fired.
  int fired() const { return fired_; }
  // How many connections opened with a TLS ClientHello (a client probing
  // whether the registry speaks https), answered like a plain HTTP server.
  int tls_hellos() const { return tls_hellos_; }

 private:
  struct Rule {
    FaultRule spec;
    std::regex pattern;
    int matches = 0;
  };
  class Connection;

  void AcceptLoop();
  void Serve(int client_fd);
  // The rule firing for this request, counting matches; nullopt: none.
  std::optional<FaultRule> Match(const std::string& method, const std::string& target);
  size_t Log(ProxiedRequest request);
  void UpdateLog(size_t index, uint64_t body_bytes, int status);
  int ConnectUpstream();
  void Track(int fd);
  void Untrack(int fd);
  // Waits `d` or until Stop.
  void Pause(absl::Duration d);

  int listen_fd_ = -1;
  int port_ = 0;
  int upstream_port_ = 0;
  std::atomic<bool> stopping_{false};
  std::atomic<int> fired_{0};
  std::atomic<int> tls_hellos_{0};
  std::thread acceptor_;
  mutable std::mutex mu_;
  std::condition_variable stop_cv_;
  std::vector<std::thread> workers_;
  std::set<int> open_fds_;
  std::vector<Rule> rules_;
  std::vector<ProxiedRequest> log_;
};

}  // namespace trainpkg::registry::testing

#endif  // TRAINPKG_TESTS_REGISTRY_FAULT_PROXY_H_
