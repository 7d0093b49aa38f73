// The HTTP seam of the registry client and the sdk's REST clients (Vertex,
// Kubernetes, Google auth). Layers stack on it like go-containerregistry's
// transports: RegistryClient → AuthTransport → RetryTransport → the libcurl
// transport; tests put a scripted fake at the bottom. Bodies stream both
// ways, so blobs are never held in memory.
#ifndef TRAINPKG_HTTP_HTTP_TRANSPORT_H_
#define TRAINPKG_HTTP_HTTP_TRANSPORT_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::http {

// Header list with case-insensitive lookup; keeps order and duplicates.
class HttpHeaders {
 public:
  void Add(std::string name, std::string value);
  // Replaces every header called `name` with one.
  void Set(std::string name, std::string value);
  // First value of `name`, or nullopt.
  std::optional<std::string> Get(std::string_view name) const;
  std::vector<std::string> GetAll(std::string_view name) const;
  const std::vector<std::pair<std::string, std::string>>& entries() const { return entries_; }

 private:
  std::vector<std::pair<std::string, std::string>> entries_;
};

// A request body read in pieces. Not thread-safe; one request at a time.
class BodySource {
 public:
  virtual ~BodySource() = default;
  // Copies up to `size` bytes into `buffer`; returns 0 at the end.
  virtual absl::StatusOr<size_t> Read(char* buffer, size_t size) = 0;
  // Total length when known (sent as Content-Length), nullopt otherwise.
  virtual std::optional<uint64_t> Size() const = 0;
  // Starts again at the first byte. False when the source cannot (a pipe):
  // such a request is never replayed.
  virtual bool Rewind() = 0;
};

// A body held in a string (manifests, small blobs, token forms).
class StringBodySource final : public BodySource {
 public:
  explicit StringBodySource(std::string data) : data_(std::move(data)) {}
  absl::StatusOr<size_t> Read(char* buffer, size_t size) override;
  std::optional<uint64_t> Size() const override { return data_.size(); }
  bool Rewind() override {
    offset_ = 0;
    return true;
  }

 private:
  std::string data_;
  size_t offset_ = 0;
};

// Receives a response body piece by piece; a non-OK Status aborts the
// transfer and becomes the result of Send.
using BodySink = std::function<absl::Status(std::string_view chunk)>;

// Told the status and headers of a 2xx response before its first body byte
// reaches the BodySink (a ranged GET learns whether it got 206 or 200); a
// non-OK Status aborts the transfer. Not called for an empty body.
using ResponseStart = std::function<absl::Status(int status, const HttpHeaders& headers)>;

struct HttpRequest {
  std::string method = "GET";
  std::string url;  // absolute
  HttpHeaders headers;
  BodySource* body = nullptr;  // not owned; must outlive Send; null: no body
  // When set, a 2xx response body streams here instead of HttpResponse::body.
  BodySink response_sink;
  // When set with response_sink, called once before the first streamed byte.
  ResponseStart response_start;
  // True when sending the request twice has the effect of sending it once
  // (GET, HEAD, manifest PUT). Only such requests are retried.
  bool idempotent = false;
  // False only for a probe that learns whether a server speaks TLS at all
  // and carries nothing secret: its certificate is not checked, so no CA
  // store is loaded for a registry that turns out to speak plain HTTP.
  bool verify_tls = true;
};

// A request without headers or body.
HttpRequest MakeRequest(std::string method, std::string url, bool idempotent);

// The most of a 2xx response body kept in memory (token answers, tag lists,
// manifests, configs: JSON documents); a larger one fails the request.
inline constexpr size_t kMaxJsonBodyBytes = 4 << 20;

struct HttpResponse {
  int status = 0;
  HttpHeaders headers;
  // The body, unless it streamed to HttpRequest::response_sink. A 2xx body
  // over kMaxJsonBodyBytes fails the Send (ResourceExhausted, kAborted);
  // bodies of other responses are kept up to their first 64 KiB.
  std::string body;
};

// Sends requests. Implementations are thread-safe.
class HttpTransport {
 public:
  virtual ~HttpTransport() = default;
  // Returns the response for any HTTP status, 4xx and 5xx included. Returns
  // a Status only when no complete response arrived (connect, TLS, reset,
  // timeout, an aborting sink); TransportFailureOf says which.
  virtual absl::StatusOr<HttpResponse> Send(const HttpRequest& request) = 0;
};

// Why a Send produced no response. Carried as a payload on the Status.
enum class TransportFailure {
  kUnknown,       // no payload
  kConnect,       // resolve or connect failed
  kReset,         // connection dropped mid-exchange
  kTimeout,       // connect timeout or stalled transfer
  kTlsHandshake,  // TLS could not be negotiated (e.g. the server speaks plain HTTP)
  kTlsVerify,     // the server certificate is not trusted
  kAborted,       // a body source or sink failed
};

absl::Status MakeTransportError(TransportFailure failure, absl::StatusCode code,
                                std::string message);
TransportFailure TransportFailureOf(const absl::Status& status);

// True for connection failures that a new attempt may get past: could not
// connect, connection reset, timeout. TLS and other failures would recur.
bool IsTransientTransportFailure(const absl::Status& status);

}  // namespace trainpkg::http

#endif  // TRAINPKG_HTTP_HTTP_TRANSPORT_H_
