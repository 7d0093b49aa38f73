#include "http/retry_transport.h"

#include <algorithm>
#include <cmath>

#include "base/log.h"
#include "http/url.h"

namespace trainpkg::http {
absl::Duration BackoffFor(const RetryPolicy& policy, int retry, double unit_random) {
  absl::Duration base = policy.initial_backoff * std::pow(policy.multiplier, retry - 1);
  base = std::min(base, policy.max_backoff);
  double factor = 1.0 + policy.jitter * (2.0 * unit_random - 1.0);
  return base * factor;
}

std::optional<absl::Duration> ParseRetryAfter(std::string_view value, absl::Time now) {
  if (!value.empty() &&
      std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (value.size() > 9) return absl::Seconds(999999999);
    return absl::Seconds(std::stoll(std::string(value)));
  }
  absl::Time when;
  std::string error;
  if (!absl::ParseTime("%a, %d %b %Y %H:%M:%S GMT", std::string(value), absl::UTCTimeZone(), &when,
                       &error)) {
    return std::nullopt;
  }
  return std::max(absl::ZeroDuration(), when - now);
}

bool IsRetryableHttpStatus(int status) {
  return status == 408 || status == 429 ||
         (status >= 500 && status <= 599 && status != 501 && status != 505);
}

RetryTransport::RetryTransport(std::shared_ptr<HttpTransport> inner, RetryPolicy policy,
                               base::Clock& clock, std::function<double()> unit_random)
    : inner_(std::move(inner)),
      policy_(policy),
      clock_(clock),
      unit_random_(std::move(unit_random)),
      rng_(std::random_device{}()) {}

double RetryTransport::NextRandom() {
  if (unit_random_) return unit_random_();
  std::lock_guard<std::mutex> lock(mu_);
  return std::uniform_real_distribution<double>(0.0, 1.0)(rng_);
}

absl::StatusOr<HttpResponse> RetryTransport::Send(const HttpRequest& request) {
  // Count what reaches the caller's sink: once bytes went out, a replay
  // would deliver them twice.
  uint64_t delivered = 0;
  HttpRequest attempt_request = request;
  if (request.response_sink) {
    attempt_request.response_sink = [&](std::string_view chunk) {
      delivered += chunk.size();
      return request.response_sink(chunk);
    };
  }
  for (int attempt = 1;; ++attempt) {
    absl::StatusOr<HttpResponse> result = inner_->Send(attempt_request);
    bool retryable = result.ok() ? IsRetryableHttpStatus(result->status)
                                 : IsTransientTransportFailure(result.status());
    if (!retryable || !request.idempotent || attempt >= policy_.max_attempts || delivered > 0) {
      return result;
    }
    if (request.body != nullptr && !request.body->Rewind()) return result;
    absl::Duration wait = BackoffFor(policy_, attempt, NextRandom());
    if (result.ok()) {
      if (std::optional<std::string> header = result->headers.Get("Retry-After")) {
        if (std::optional<absl::Duration> after = ParseRetryAfter(*header, clock_.Now())) {
          wait = std::max(wait, std::min(*after, policy_.max_retry_after));
        }
      }
    }
    TP_LOG(INFO, "{} {}: {}; retrying in {} (attempt {} of {})", request.method,
           UrlForDisplay(request.url),
           result.ok() ? std::to_string(result->status)
                       : std::string(std::string(result.status().message())),
           absl::FormatDuration(wait), attempt + 1, policy_.max_attempts);
    clock_.SleepFor(wait);
  }
}

}  // namespace trainpkg::http
