// An HttpTransport decorator that retries what is safe to retry: idempotent
// requests whose body can be replayed and whose response has not started
// streaming to a sink. It retries on 408, 429, 5xx (not 501/505) and on
// connection failures, resets and timeouts, waiting a jittered exponential
// backoff or the server's Retry-After, whichever is longer.
#ifndef TRAINPKG_HTTP_RETRY_TRANSPORT_H_
#define TRAINPKG_HTTP_RETRY_TRANSPORT_H_

#include <functional>
#include <memory>
#include <mutex>
#include <random>

#include "absl/time/time.h"
#include "base/clock.h"
#include "http/http_transport.h"

namespace trainpkg::http {

struct RetryPolicy {
  int max_attempts = 4;  // including the first; 1 disables retries
  absl::Duration initial_backoff = absl::Milliseconds(500);
  absl::Duration max_backoff = absl::Seconds(10);
  double multiplier = 2.0;
  double jitter = 0.2;  // each wait is scaled by a factor in [1 - jitter, 1 + jitter]
  absl::Duration max_retry_after = absl::Seconds(60);  // caps a server's Retry-After
};

// The wait before retry number `retry` (1-based) with the jitter factor
// drawn from `unit_random` (in [0, 1)), before any Retry-After.
absl::Duration BackoffFor(const RetryPolicy& policy, int retry, double unit_random);

// A Retry-After header value (delta-seconds or an HTTP-date) as a wait from
// `now`; nullopt when it cannot be parsed. Past dates give zero.
std::optional<absl::Duration> ParseRetryAfter(std::string_view value, absl::Time now);

// True for HTTP statuses worth retrying: 408, 429 and 5xx but 501 and 505.
bool IsRetryableHttpStatus(int status);

// Thread-safe when the inner transport and the clock are.
class RetryTransport final : public HttpTransport {
 public:
  // `unit_random` returns uniform values in [0, 1); the default is a seeded
  // Mersenne twister. `clock` must outlive the transport.
  RetryTransport(std::shared_ptr<HttpTransport> inner, RetryPolicy policy, base::Clock& clock,
                 std::function<double()> unit_random = nullptr);

  // Returns the last response (or transport Status) when attempts run out.
  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override;

 private:
  double NextRandom();

  std::shared_ptr<HttpTransport> inner_;
  RetryPolicy policy_;
  base::Clock& clock_;
  std::function<double()> unit_random_;
  std::mutex mu_;
  std::mt19937_64 rng_;
};

}  // namespace trainpkg::http

#endif  // TRAINPKG_HTTP_RETRY_TRANSPORT_H_
