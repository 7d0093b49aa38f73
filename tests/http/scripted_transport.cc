#include "tests/http/scripted_transport.h"

#include <cstdio>
#include <cstdlib>

namespace trainpkg::http::testing {

absl::StatusOr<HttpResponse> ScriptedTransport::Send(const HttpRequest& request) {
  RecordedRequest recorded{request.method, request.url, request.headers, ""};
  if (request.body != nullptr) {
    char buf[4096];
    while (true) {
      absl::StatusOr<size_t> n = request.body->Read(buf, sizeof(buf));
      if (!n.ok() || *n == 0) break;
      recorded.body.append(buf, *n);
    }
  }
  absl::StatusOr<HttpResponse> reply;
  {
    std::lock_guard<std::mutex> lock(mu_);
    requests_.push_back(recorded);
    if (handler_) {
      reply = handler_(recorded);
    } else {
      if (replies_.empty()) {
        std::fprintf(stderr, "ScriptedTransport: unexpected %s %s\n", request.method.c_str(),
                     request.url.c_str());
        std::abort();
      }
      reply = std::move(replies_.front());
      replies_.pop_front();
    }
  }
  if (reply.ok() && reply->status >= 200 && reply->status < 300 && request.response_sink) {
    if (request.response_start && !reply->body.empty()) {
      absl::Status started = request.response_start(reply->status, reply->headers);
      if (!started.ok()) return started;
    }
    absl::Status sunk = request.response_sink(reply->body);
    if (!sunk.ok()) return sunk;
    reply->body.clear();
  }
  return reply;
}

HttpResponse Response(int status, std::string body,
                      std::vector<std::pair<std::string, std::string>> headers) {
  HttpResponse response;
  response.status = status;
  response.body = std::move(body);
  for (auto& [name, value] : headers) response.headers.Add(name, value);
  return response;
}

}  // namespace trainpkg::http::testing
