// A test double for the HTTP seam (http/http_transport.h): a scripted
// HttpTransport that records requests. The registry's and the sdk's HTTP
// clients are tested on it; the fake clock is tests/test_util/fake_clock.h.
#ifndef TRAINPKG_TESTS_HTTP_SCRIPTED_TRANSPORT_H_
#define TRAINPKG_TESTS_HTTP_SCRIPTED_TRANSPORT_H_

#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <vector>

#include "http/http_transport.h"

namespace trainpkg::http::testing {

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

}  // namespace trainpkg::http::testing

#endif  // TRAINPKG_TESTS_HTTP_SCRIPTED_TRANSPORT_H_
