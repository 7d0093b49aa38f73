#include "http/curl_transport.h"

#include <curl/curl.h>

#include <algorithm>
#include <cstdio>
#include <system_error>

#include "absl/strings/ascii.h"
#include "base/log.h"
#include "fmt/format.h"
#include "http/internal/curl_handle_pool.h"
#include "http/url.h"

namespace trainpkg::http {
namespace {

constexpr long kUploadBufferBytes = 1L << 20;  // CURLOPT_UPLOAD_BUFFERSIZE (max 2 MiB)

constexpr size_t kMaxKeptBody = 64 * 1024;

// State shared with libcurl's callbacks during one exchange.
struct Exchange {
  CURL* handle = nullptr;
  const HttpRequest* request = nullptr;
  HttpResponse response;
  absl::Status callback_status;  // why a callback aborted the transfer
  bool started = false;          // response_start was called
  bool error_body_cut = false;   // an error body passed kMaxKeptBody: the rest was dropped
};

size_t OnHeader(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  std::string_view line(data, size * count);
  if (line.starts_with("HTTP/")) {
    ex->response.headers = HttpHeaders();  // a new response (after 100 or a redirect)
    return line.size();
  }
  size_t colon = line.find(':');
  if (colon != std::string_view::npos) {
    std::string name(line.substr(0, colon));
    std::string value(line.substr(colon + 1));
    absl::StripAsciiWhitespace(&value);
    ex->response.headers.Add(std::move(name), std::move(value));
  }
  return line.size();
}

size_t OnBody(char* data, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  size_t n = size * count;
  long code = 0;
  curl_easy_getinfo(ex->handle, CURLINFO_RESPONSE_CODE, &code);
  if (code >= 200 && code < 300 && ex->request->response_sink) {
    if (!ex->started && ex->request->response_start) {
      ex->started = true;
      ex->callback_status =
          ex->request->response_start(static_cast<int>(code), ex->response.headers);
      if (!ex->callback_status.ok()) return 0;
    }
    ex->callback_status = ex->request->response_sink(std::string_view(data, n));
    return ex->callback_status.ok() ? n : 0;
  }
  if (code >= 200 && code < 300) {
    if (n > kMaxJsonBodyBytes - ex->response.body.size()) {
      ex->callback_status = absl::ResourceExhaustedError(fmt::format(
          "the response body is over {} bytes, the most trainpkg keeps in memory for a registry "
          "answer (a token, tag list or error); refusing the rest",
          kMaxJsonBodyBytes));
      return 0;
    }
    ex->response.body.append(data, n);
    return n;
  }
  size_t room = kMaxKeptBody - std::min(kMaxKeptBody, ex->response.body.size());
  ex->response.body.append(data, std::min(room, n));
  if (n > room) {  // the rest is never read: an endless error body ends here
    ex->error_body_cut = true;
    return 0;
  }
  return n;
}

size_t OnRead(char* buffer, size_t size, size_t count, void* user) {
  auto* ex = static_cast<Exchange*>(user);
  absl::StatusOr<size_t> n = ex->request->body->Read(buffer, size * count);
  if (!n.ok()) {
    ex->callback_status = n.status();
    return CURL_READFUNC_ABORT;
  }
  return *n;
}

// libcurl copies the blob (CURL_BLOB_COPY); an empty `pem` sets nothing.
void SetPemBlob(CURL* h, CURLoption option, const std::string& pem) {
  if (pem.empty()) return;
  curl_blob blob{const_cast<char*>(pem.data()), pem.size(), CURL_BLOB_COPY};
  curl_easy_setopt(h, option, &blob);
}

// libcurl rewinds a body to resend it by itself when a reused connection
// dies before any answer arrived. A request that is not idempotent (an
// upload PUT or PATCH) is never resent that way: its bytes may have landed,
// so the caller asks the session where it stands (CURLE_SEND_FAIL_REWIND,
// reported as a lost connection).
int OnSeek(void* user, curl_off_t offset, int origin) {
  auto* ex = static_cast<Exchange*>(user);
  if (!ex->request->idempotent) return CURL_SEEKFUNC_CANTSEEK;
  if (offset == 0 && origin == SEEK_SET && ex->request->body->Rewind()) return CURL_SEEKFUNC_OK;
  return CURL_SEEKFUNC_CANTSEEK;
}

class CurlTransport final : public HttpTransport {
 public:
  explicit CurlTransport(CurlTransportOptions options) : options_(std::move(options)) {}

  absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override {
    absl::StatusOr<std::string> authority = UrlAuthority(request.url);
    if (!authority.ok()) return authority.status();
    CURL* handle = pool_.Acquire();
    Exchange ex;
    ex.handle = handle;
    ex.request = &request;
    curl_slist* headers = nullptr;
    for (const auto& [name, value] : request.headers.entries()) {
      headers = curl_slist_append(headers, fmt::format("{}: {}", name, value).c_str());
    }
    // libcurl asks for `100 Continue` before every HTTP/1.1 PUT body (and
    // POST bodies over 1 MiB), a round trip per request; docker,
    // go-containerregistry and skopeo never do, nor does libcurl over
    // HTTP/2. Our bodies go into sessions the same credentials just opened
    // (or are small: manifests, configs), and a refusal that arrives
    // mid-body stops the sending (libcurl reads answers while it sends), so
    // the wait buys nothing. A body is never resent blindly (OnSeek).
    if (request.body != nullptr) headers = curl_slist_append(headers, "Expect:");
    char error[CURL_ERROR_SIZE] = {0};
    std::string ca_file = CaFileFor(*authority);
    Configure(handle, request, ex, headers, error, ca_file, *authority);
    CURLcode rc = curl_easy_perform(handle);
    long code = 0, version = 0, new_connections = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &code);
    curl_easy_getinfo(handle, CURLINFO_HTTP_VERSION, &version);
    curl_easy_getinfo(handle, CURLINFO_NUM_CONNECTS, &new_connections);
    curl_slist_free_all(headers);
    pool_.Release(handle);
    if (rc != CURLE_OK && !(rc == CURLE_WRITE_ERROR && ex.error_body_cut)) {
      return Failure(request, rc, error, ex.callback_status, *authority);
    }
    ex.response.status = static_cast<int>(code);
    TP_LOG(DEBUG, "{} {} -> {} ({}, {} connection)", request.method, UrlForDisplay(request.url),
           code, version == CURL_HTTP_VERSION_2_0 ? "HTTP/2" : "HTTP/1.1",
           new_connections > 0 ? "new" : "reused");
    return std::move(ex.response);
  }

 private:
  std::string CaFileFor(const std::string& authority) const {
    if (options_.certs_dir.empty()) return std::string();
    std::filesystem::path ca = options_.certs_dir / authority / "ca.crt";
    std::error_code ec;
    return std::filesystem::is_regular_file(ca, ec) ? ca.string() : std::string();
  }

  bool Insecure(const std::string& authority) const {
    return std::find(options_.insecure_registries.begin(), options_.insecure_registries.end(),
                     authority) != options_.insecure_registries.end();
  }

  void Configure(CURL* h, const HttpRequest& request, Exchange& ex, curl_slist* headers,
                 char* error, const std::string& ca_file, const std::string& authority) const {
    curl_easy_setopt(h, CURLOPT_URL, request.url.c_str());
    curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_REDIR_PROTOCOLS_STR, "http,https");
    curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(h, CURLOPT_HTTP_VERSION, static_cast<long>(CURL_HTTP_VERSION_2TLS));
    curl_easy_setopt(h, CURLOPT_TCP_KEEPALIVE, 1L);
    curl_easy_setopt(h, CURLOPT_ERRORBUFFER, error);
    curl_easy_setopt(h, CURLOPT_USERAGENT, options_.user_agent.c_str());
    curl_easy_setopt(h, CURLOPT_HTTPHEADER, headers);
    curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS,
                     static_cast<long>(absl::ToInt64Milliseconds(options_.connect_timeout)));
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_LIMIT, 1L);
    curl_easy_setopt(h, CURLOPT_LOW_SPEED_TIME,
                     std::max(1L, static_cast<long>(absl::ToInt64Seconds(options_.stall_timeout))));
    if (!ca_file.empty()) curl_easy_setopt(h, CURLOPT_CAINFO, ca_file.c_str());
    SetPemBlob(h, CURLOPT_CAINFO_BLOB, options_.ca_pem);
    if (!options_.client_cert_pem.empty()) {
      SetPemBlob(h, CURLOPT_SSLCERT_BLOB, options_.client_cert_pem);
      curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
      SetPemBlob(h, CURLOPT_SSLKEY_BLOB, options_.client_key_pem);
      curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
    }
    if (Insecure(authority) || !request.verify_tls) {
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 0L);
      curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 0L);
    }
    curl_easy_setopt(h, CURLOPT_HEADERFUNCTION, &OnHeader);
    curl_easy_setopt(h, CURLOPT_HEADERDATA, &ex);
    curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, &OnBody);
    curl_easy_setopt(h, CURLOPT_WRITEDATA, &ex);
    const std::string& method = request.method;
    if (method == "GET" || method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_FOLLOWLOCATION, 1L);
      curl_easy_setopt(h, CURLOPT_MAXREDIRS, 10L);
    }
    if (method == "HEAD") {
      curl_easy_setopt(h, CURLOPT_NOBODY, 1L);
    } else if (request.body != nullptr) {
      curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
      std::optional<uint64_t> size = request.body->Size();
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE,
                       size ? static_cast<curl_off_t>(*size) : static_cast<curl_off_t>(-1));
      // Larger reads than libcurl's 64 KiB default: fewer callbacks and
      // syscalls on multi-hundred-MB layer uploads.
      curl_easy_setopt(h, CURLOPT_UPLOAD_BUFFERSIZE, kUploadBufferBytes);
      curl_easy_setopt(h, CURLOPT_READFUNCTION, &OnRead);
      curl_easy_setopt(h, CURLOPT_READDATA, &ex);
      curl_easy_setopt(h, CURLOPT_SEEKFUNCTION, &OnSeek);
      curl_easy_setopt(h, CURLOPT_SEEKDATA, &ex);
      if (method != "PUT") curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
    } else if (method == "POST") {
      curl_easy_setopt(h, CURLOPT_POST, 1L);
      curl_easy_setopt(h, CURLOPT_POSTFIELDS, "");
      curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE, 0L);
    } else if (method == "PUT") {
      curl_easy_setopt(h, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(h, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(0));
    } else if (method != "GET") {
      curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method.c_str());
    }
  }

  absl::Status Failure(const HttpRequest& request, CURLcode rc, const char* error,
                       const absl::Status& callback_status, const std::string& authority) const {
    std::string what = fmt::format("{} {}", request.method, UrlForDisplay(request.url));
    std::string detail = error[0] != '\0' ? std::string(error) : curl_easy_strerror(rc);
    switch (rc) {
      case CURLE_ABORTED_BY_CALLBACK:
      case CURLE_WRITE_ERROR:
      case CURLE_READ_ERROR:
        if (!callback_status.ok()) {
          return MakeTransportError(
              TransportFailure::kAborted, callback_status.code(),
              fmt::format("{}: {}", what, std::string(callback_status.message())));
        }
        break;
      case CURLE_COULDNT_RESOLVE_HOST:
      case CURLE_COULDNT_CONNECT:
        return MakeTransportError(TransportFailure::kConnect, absl::StatusCode::kUnavailable,
                                  fmt::format("{}: cannot connect: {}", what, detail));
      case CURLE_OPERATION_TIMEDOUT:
        return MakeTransportError(TransportFailure::kTimeout, absl::StatusCode::kDeadlineExceeded,
                                  fmt::format("{}: timed out: {}", what, detail));
      case CURLE_SEND_FAIL_REWIND:  // lost mid-body; see OnSeek
        return MakeTransportError(
            TransportFailure::kReset, absl::StatusCode::kUnavailable,
            fmt::format("{}: connection lost while sending the body (not resent)", what));
      case CURLE_SEND_ERROR:
      case CURLE_RECV_ERROR:
      case CURLE_GOT_NOTHING:
      case CURLE_PARTIAL_FILE:
      case CURLE_HTTP2:
      case CURLE_HTTP2_STREAM:
        return MakeTransportError(TransportFailure::kReset, absl::StatusCode::kUnavailable,
                                  fmt::format("{}: connection lost: {}", what, detail));
      case CURLE_PEER_FAILED_VERIFICATION:
        return MakeTransportError(
            TransportFailure::kTlsVerify, absl::StatusCode::kFailedPrecondition,
            !options_.ca_pem.empty()
                ? fmt::format("{}: the TLS certificate of {} is not signed by the configured "
                              "certificate authority ({})",
                              what, authority, detail)
                : fmt::format("{}: the TLS certificate of {} is not trusted ({}); put its CA "
                              "certificate in {} or in the system CA store",
                              what, authority, detail,
                              (options_.certs_dir / authority / "ca.crt").string()));
      case CURLE_SSL_CONNECT_ERROR:
        return MakeTransportError(TransportFailure::kTlsHandshake,
                                  absl::StatusCode::kFailedPrecondition,
                                  fmt::format("{}: TLS handshake failed: {}", what, detail));
      default:
        break;
    }
    return MakeTransportError(TransportFailure::kUnknown, absl::StatusCode::kUnavailable,
                              fmt::format("{}: {}", what, detail));
  }

  CurlTransportOptions options_;
  mutable internal::CurlHandlePool pool_;
};

}  // namespace

std::unique_ptr<HttpTransport> MakeCurlTransport(CurlTransportOptions options) {
  return std::make_unique<CurlTransport>(std::move(options));
}

}  // namespace trainpkg::http
