// Test doubles for the registry client's seams: a scripted HttpTransport
// that records requests, and a fake clock whose sleeps only advance time.
#ifndef TRAINPKG_TESTS_REGISTRY_FAKES_H_
#define TRAINPKG_TESTS_REGISTRY_FAKES_H_

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "registry/clock.h"
#include "registry/http_transport.h"

namespace trainpkg::registry::testing {

struct RecordedRequest {
  std::string method;
  std::string url;
  HttpHeaders headers;
  std::string body;  // read from the BodySource
};

// Answers each request with the next scripted reply (a response or a
// Status); a handler, when set, answers instead.
class ScriptedTransport : public HttpTransport {
 public:
  using Handler = std::function<absl::StatusOr<HttpResponse>(const RecordedRequest&)>;

  void Push(absl::StatusOr<HttpResponse> reply) { replies_.push_back(std::move(reply)); }
  void SetHandler(Handler handler) { handler_ = std::move(handler); }
  const std::vector<RecordedRequest>& requests() const { return requests_; }

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override;

 private:
  std::mutex mu_;
  std::deque<absl::StatusOr<HttpResponse>> replies_;
  Handler handler_;
  std::vector<RecordedRequest> requests_;
};

HttpResponse Response(int status, std::string body = "",
                      std::vector<std::pair<std::string, std::string>> headers = {});

// Thread-safe: pushes and pulls sleep on it from their blob threads.
class FakeClock : public Clock {
 public:
  absl::Time Now() override {
    std::lock_guard<std::mutex> lock(mu_);
    return now_;
  }
  void SleepFor(absl::Duration d) override {
    std::lock_guard<std::mutex> lock(mu_);
    sleeps_.push_back(d);
    now_ += d;
  }
  void Advance(absl::Duration d) {
    std::lock_guard<std::mutex> lock(mu_);
    now_ += d;
  }
  std::vector<absl::Duration> sleeps() const {
    std::lock_guard<std::mutex> lock(mu_);
    return sleeps_;
  }

 private:
  mutable std::mutex mu_;
  absl::Time now_ = absl::FromUnixSeconds(1800000000);
  std::vector<absl::Duration> sleeps_;
};

}  // namespace trainpkg::registry::testing

#endif  // TRAINPKG_TESTS_REGISTRY_FAKES_H_
