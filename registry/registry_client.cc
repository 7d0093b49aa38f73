#include "registry/registry_client.h"

#include <algorithm>
#include <filesystem>

#include "base/json_parse.h"
#include "base/log.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "http/url.h"
#include "nlohmann/json.hpp"
#include "registry/auth/auth_transport.h"
#include "registry/auth/scope.h"
#include "registry/internal/upload_range.h"
#include "registry/oci/digest_builder.h"
#include "registry/registry_error.h"

namespace trainpkg::registry {
namespace {

std::string ShortDigest(const oci::Digest& digest) {
  std::string text = digest.ToString();
  return text.substr(0, std::min<size_t>(text.size(), 19)) + "…";
}

// The session a response's Location names, resolved against `request_url`.
absl::StatusOr<UploadSession> SessionFrom(const http::HttpResponse& response,
                                          std::string_view request_url, std::string_view context) {
  std::optional<std::string> location = response.headers.Get("Location");
  if (!location.has_value() || location->empty()) {
    return absl::InternalError(fmt::format("{}: the registry sent no upload Location", context));
  }
  absl::StatusOr<uint64_t> held = internal::UploadedBytes(response.headers.Get("Range"));
  if (!held.ok()) return base::WithContext(held.status(), context);
  // The Location may be relative, and each response's is the one to use
  // next (distribution spec): registries may move the session on every step.
  return UploadSession{http::ResolveUrl(request_url, *location), *held};
}

std::string WithDigestParam(std::string url, const oci::Digest& digest) {
  // The Location may carry a query of its own (the session state, for some
  // registries), which must be kept.
  url += (url.find('?') == std::string::npos ? "?digest=" : "&digest=");
  return url + http::UrlEncode(digest.ToString());
}

std::string MediaTypeOf(const http::HttpResponse& response) {
  std::string type = response.headers.Get("Content-Type").value_or("");
  type = type.substr(0, type.find(';'));
  while (!type.empty() && type.back() == ' ') type.pop_back();
  return type;
}

// The URL in `Link: <url>; rel="next"`, or "".
std::string NextLink(const http::HttpResponse& response) {
  std::string link = response.headers.Get("Link").value_or("");
  size_t open = link.find('<');
  size_t close = link.find('>', open);
  if (open == std::string::npos || close == std::string::npos) return "";
  if (link.find("rel=\"next\"", close) == std::string::npos) return "";
  return link.substr(open + 1, close - open - 1);
}

absl::Status CheckVerifiable(const oci::Digest& digest) {
  if (digest.empty()) return absl::InvalidArgumentError("an empty digest names no blob");
  return absl::OkStatus();
}

}  // namespace

absl::Status BlobTooLong(const oci::Digest& digest, const Repository& repo, uint64_t size) {
  return absl::DataLossError(
      fmt::format("pulling blob {} from {}: the registry sent more than the {} bytes its "
                  "descriptor names; stopped and discarded it",
                  digest.ToString(), repo.Name(), size));
}

const std::vector<std::string>& DefaultManifestAccept() {
  static const std::vector<std::string>* const types = new std::vector<std::string>{
      "application/vnd.oci.image.manifest.v1+json",
      "application/vnd.oci.image.index.v1+json",
      "application/vnd.docker.distribution.manifest.v2+json",
      "application/vnd.docker.distribution.manifest.list.v2+json",
  };
  return *types;
}

RegistryClient::RegistryClient(RegistryClientOptions options)
    : keychain_(options.keychain ? options.keychain : std::make_shared<AnonymousKeychain>()),
      insecure_(options.insecure_registries),
      clock_(options.clock ? *options.clock : base::RealClock()),
      certs_dir_(options.curl.certs_dir),
      max_retry_after_(options.retry.max_retry_after) {
  std::shared_ptr<http::HttpTransport> base = options.transport;
  if (!base) {
    http::CurlTransportOptions curl = options.curl;
    curl.insecure_registries.insert(curl.insecure_registries.end(), insecure_.begin(),
                                    insecure_.end());
    base = http::MakeCurlTransport(std::move(curl));
  }
  transport_ = std::make_shared<http::RetryTransport>(std::move(base), options.retry, clock_);
}

absl::StatusOr<RegistryClient::Endpoint> RegistryClient::EndpointFor(std::string_view registry) {
  auto known = [&]() -> std::optional<Endpoint> {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = endpoints_.find(std::string(registry));
    if (it == endpoints_.end()) return std::nullopt;
    return it->second;
  };
  auto settle = [&](std::string_view scheme) {
    std::string base_url = fmt::format("{}://{}", scheme, RegistryApiHost(registry));
    Endpoint endpoint{base_url, std::make_shared<Authenticator>(std::string(registry), base_url,
                                                                keychain_, transport_, clock_)};
    std::lock_guard<std::mutex> lock(mu_);
    return endpoints_.emplace(std::string(registry), endpoint).first->second;
  };
  if (std::optional<Endpoint> endpoint = known()) return *endpoint;
  // One probe per registry, however many blob threads ask at once.
  std::lock_guard<std::mutex> probing(probe_mu_);
  if (std::optional<Endpoint> endpoint = known()) return *endpoint;
  bool insecure = std::find(insecure_.begin(), insecure_.end(), registry) != insecure_.end();
  // Only https is allowed: nothing to learn before the first real request,
  // which meets connection, TLS and auth errors itself (an up-front GET
  // /v2/ would only cost a round trip: its challenge is not needed, as
  // every request answers a 401 through AuthTransport).
  if (!insecure && !IsLoopbackRegistry(registry)) return settle("https");
  // Plain HTTP is allowed: https when the server speaks TLS, else http.
  // Where no CA is configured for the registry (docker's certs.d), the
  // probe only asks whether the server speaks TLS, so a plain-HTTP registry
  // costs no CA store load; the certificate is checked on every request
  // that follows (an unverified connection is never reused for them).
  std::error_code ec;
  bool has_ca = std::filesystem::exists(certs_dir_ / std::string(registry) / "ca.crt", ec);
  http::HttpRequest probe =
      http::MakeRequest("GET", fmt::format("https://{}/v2/", RegistryApiHost(registry)), true);
  probe.verify_tls = has_ca;
  absl::StatusOr<http::HttpResponse> answer = transport_->Send(probe);
  if (answer.ok()) return settle("https");
  http::TransportFailure failure = http::TransportFailureOf(answer.status());
  // A handshake the server refused: it speaks plain HTTP, which the first
  // real request uses at once (no second probe).
  if (failure == http::TransportFailure::kTlsHandshake ||
      (insecure && failure == http::TransportFailure::kTlsVerify)) {
    return settle("http");
  }
  return base::WithContext(answer.status(), fmt::format("reaching registry {}", registry));
}

absl::StatusOr<http::HttpResponse> RegistryClient::Send(const Endpoint& endpoint,
                                                        const std::vector<std::string>& scopes,
                                                        const http::HttpRequest& request) {
  return AuthTransport(transport_, endpoint.auth, scopes).Send(request);
}

absl::Status RegistryClient::Ping(std::string_view registry) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(registry));
  http::HttpRequest request = http::MakeRequest("GET", endpoint.base_url + "/v2/", true);
  TP_ASSIGN_OR_RETURN(http::HttpResponse response, Send(endpoint, {}, request));
  if (response.status == 200) return absl::OkStatus();
  return StatusFromResponse(response, fmt::format("checking registry {}", registry));
}

absl::StatusOr<std::optional<BlobInfo>> RegistryClient::StatBlob(const Repository& repo,
                                                                 const oci::Digest& digest) {
  TP_RETURN_IF_ERROR(CheckVerifiable(digest));
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  http::HttpRequest request = http::MakeRequest(
      "HEAD", fmt::format("{}/v2/{}/blobs/{}", endpoint.base_url, repo.path, digest.ToString()),
      true);
  std::string context = fmt::format("checking blob {} in {}", ShortDigest(digest), repo.Name());
  // A push's first request: where no probe ran, it meets connection errors.
  absl::StatusOr<http::HttpResponse> response = Send(endpoint, PullScopes(repo.path), request);
  if (!response.ok()) return base::WithContext(response.status(), context);
  if (response->status == 404) return std::nullopt;
  if (response->status != 200) return StatusFromResponse(*response, context);
  BlobInfo info{.digest = digest, .size = 0};
  std::string length = response->headers.Get("Content-Length").value_or("0");
  info.size = std::strtoll(length.c_str(), nullptr, 10);
  return info;
}

absl::StatusOr<uint64_t> RegistryClient::ReadBlob(
    const Repository& repo, const oci::Digest& digest, uint64_t offset,
    const std::function<absl::Status(uint64_t from)>& start, const http::BodySink& sink) {
  TP_RETURN_IF_ERROR(CheckVerifiable(digest));
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  uint64_t bytes = 0;
  http::HttpRequest request = http::MakeRequest(
      "GET", fmt::format("{}/v2/{}/blobs/{}", endpoint.base_url, repo.path, digest.ToString()),
      true);
  if (offset > 0) request.headers.Add("Range", fmt::format("bytes={}-", offset));
  // 206: the registry honoured the Range and sends from `offset`; 200: it
  // ignored it and sends the whole blob, so the caller restarts from 0.
  request.response_start = [&](int status, const http::HttpHeaders&) {
    return start(status == 206 ? offset : 0);
  };
  request.response_sink = [&](std::string_view chunk) {
    bytes += chunk.size();
    return sink(chunk);
  };
  std::string context = fmt::format("pulling blob {} from {}", ShortDigest(digest), repo.Name());
  absl::StatusOr<http::HttpResponse> response = Send(endpoint, PullScopes(repo.path), request);
  if (!response.ok()) return base::WithContext(response.status(), context);
  if (response->status != 200 && response->status != 206) {
    return StatusFromResponse(*response, context);
  }
  return bytes;
}

absl::StatusOr<uint64_t> RegistryClient::FetchBlob(const Repository& repo,
                                                   const oci::Digest& digest, uint64_t size,
                                                   const http::BodySink& sink) {
  oci::DigestBuilder hash(digest.algorithm());
  uint64_t received = 0;
  TP_ASSIGN_OR_RETURN(uint64_t bytes,
                      ReadBlob(
                          repo, digest, 0, [](uint64_t) { return absl::OkStatus(); },
                          [&](std::string_view chunk) {
                            // Stops at the descriptor's size: a registry cannot make us
                            // store or hash more than the manifest promised.
                            if (chunk.size() > size - received) {
                              return BlobTooLong(digest, repo, size);
                            }
                            received += chunk.size();
                            hash.Update(chunk);
                            return sink(chunk);
                          }));
  oci::Digest actual = hash.Finish();
  if (bytes != size || actual != digest) {
    return absl::DataLossError(
        fmt::format("pulling blob {} from {}: the {} bytes received (the descriptor says {}) "
                    "hash to {}",
                    ShortDigest(digest), repo.Name(), bytes, size, actual.ToString()));
  }
  return bytes;
}

absl::Status RegistryClient::PushBlob(const Repository& repo, const oci::Digest& digest,
                                      http::BodySource& content) {
  TP_RETURN_IF_ERROR(CheckVerifiable(digest));
  TP_ASSIGN_OR_RETURN(UploadSession session, StartUpload(repo));
  return CompleteUpload(repo, session.url, digest, &content);
}

absl::StatusOr<UploadSession> RegistryClient::StartUpload(const Repository& repo) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  std::string context = fmt::format("starting a blob upload to {}", repo.Name());
  // Starting a session twice only leaves an unused session behind, so the
  // POST may be retried like an idempotent request.
  http::HttpRequest start = http::MakeRequest(
      "POST", fmt::format("{}/v2/{}/blobs/uploads/", endpoint.base_url, repo.path), true);
  absl::StatusOr<http::HttpResponse> started = Send(endpoint, PushScopes(repo.path), start);
  if (!started.ok()) return base::WithContext(started.status(), context);
  if (started->status != 202) return StatusFromResponse(*started, context);
  return SessionFrom(*started, start.url, context);
}

absl::StatusOr<MountResult> RegistryClient::MountBlob(const Repository& repo,
                                                      const oci::Digest& digest,
                                                      const Repository& source) {
  TP_RETURN_IF_ERROR(CheckVerifiable(digest));
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  std::string context = fmt::format("mounting blob {} from {} into {}", ShortDigest(digest),
                                    source.path, repo.Name());
  http::HttpRequest post = http::MakeRequest(
      "POST",
      fmt::format("{}/v2/{}/blobs/uploads/?mount={}&from={}", endpoint.base_url, repo.path,
                  http::UrlEncode(digest.ToString()), http::UrlEncode(source.path)),
      true);
  absl::StatusOr<http::HttpResponse> response =
      Send(endpoint, PushScopes(repo.path, {source.path}), post);
  if (!response.ok()) return base::WithContext(response.status(), context);
  // 201: mounted, nothing to send. 202: the registry did not mount (it lacks
  // the blob there, or may not share it) and opened an ordinary upload
  // session instead, which the caller goes on with.
  if (response->status == 201) return MountResult{.mounted = true, .session = {}};
  if (response->status != 202) return StatusFromResponse(*response, context);
  TP_ASSIGN_OR_RETURN(UploadSession session, SessionFrom(*response, post.url, context));
  return MountResult{.mounted = false, .session = std::move(session)};
}

absl::StatusOr<UploadSession> RegistryClient::PatchUpload(const Repository& repo,
                                                          const UploadSession& session,
                                                          http::BodySource& chunk) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  std::optional<uint64_t> length = chunk.Size();
  if (!length.has_value() || *length == 0) {
    return absl::InvalidArgumentError("an upload chunk needs a known, non-zero length");
  }
  std::string context = fmt::format("uploading bytes {}-{} to {}", session.offset,
                                    session.offset + *length - 1, repo.Name());
  http::HttpRequest patch = http::MakeRequest("PATCH", session.url, false);
  patch.body = &chunk;
  patch.headers.Add("Content-Type", "application/octet-stream");
  // Inclusive byte positions of the whole blob; a chunk that does not start
  // where the registry's Range ended gets 416, and GetUploadStatus tells
  // where it did end.
  patch.headers.Add("Content-Range", internal::ContentRange(session.offset, *length));
  absl::StatusOr<http::HttpResponse> response = Send(endpoint, PushScopes(repo.path), patch);
  if (!response.ok()) return base::WithContext(response.status(), context);
  if (response->status != 202) return StatusFromResponse(*response, context);
  return SessionFrom(*response, patch.url, context);
}

absl::StatusOr<UploadSession> RegistryClient::GetUploadStatus(const Repository& repo,
                                                              std::string_view url) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  std::string context =
      fmt::format("asking {} for the state of upload {}", repo.Name(), http::UrlForDisplay(url));
  http::HttpRequest get = http::MakeRequest("GET", std::string(url), true);
  absl::StatusOr<http::HttpResponse> response = Send(endpoint, PushScopes(repo.path), get);
  if (!response.ok()) return base::WithContext(response.status(), context);
  if (response->status != 204) return StatusFromResponse(*response, context);
  return SessionFrom(*response, url, context);
}

absl::Status RegistryClient::CompleteUpload(const Repository& repo, std::string_view url,
                                            const oci::Digest& digest, http::BodySource* body) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  std::string context = fmt::format("pushing blob {} to {}", ShortDigest(digest), repo.Name());
  http::HttpRequest put =
      http::MakeRequest("PUT", WithDigestParam(std::string(url), digest), false);
  http::StringBodySource empty("");
  put.body = body != nullptr ? body : &empty;
  put.headers.Add("Content-Type", "application/octet-stream");
  absl::StatusOr<http::HttpResponse> done = Send(endpoint, PushScopes(repo.path), put);
  if (!done.ok()) return base::WithContext(done.status(), context);
  if (done->status != 201) return StatusFromResponse(*done, context);
  // The registry verified the bytes against ?digest= before its 201; a
  // different Docker-Content-Digest means it stored something else.
  std::optional<std::string> stored = done->headers.Get("Docker-Content-Digest");
  if (stored.has_value() && *stored != digest.ToString()) {
    return absl::DataLossError(fmt::format("{}: the registry stored it as {}", context, *stored));
  }
  return absl::OkStatus();
}

absl::Status RegistryClient::CancelUpload(const Repository& repo, std::string_view url) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  http::HttpRequest del = http::MakeRequest("DELETE", std::string(url), true);
  absl::StatusOr<http::HttpResponse> response = Send(endpoint, PushScopes(repo.path), del);
  std::string context =
      fmt::format("cancelling upload {} to {}", http::UrlForDisplay(url), repo.Name());
  if (!response.ok()) return base::WithContext(response.status(), context);
  // Registries answer a cancel with any of these; 404 means the session is
  // gone already, which is what was asked.
  if (response->status == 204 || response->status == 202 || response->status == 200 ||
      response->status == 404) {
    return absl::OkStatus();
  }
  return StatusFromResponse(*response, context);
}

absl::StatusOr<oci::Digest> RegistryClient::PutManifest(const Reference& ref,
                                                        std::string_view media_type,
                                                        std::string bytes) {
  oci::Digest digest = oci::ComputeDigest(
      bytes, ref.digest.empty() ? oci::DigestAlgorithm::kSha256 : ref.digest.algorithm());
  std::string context = fmt::format("pushing manifest {}", ref.String());
  if (!ref.digest.empty() && ref.digest != digest) {
    return absl::InvalidArgumentError(
        fmt::format("{}: the manifest's digest is {}, not the one in the reference", context,
                    digest.ToString()));
  }
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(ref.repository.registry));
  http::StringBodySource body(std::move(bytes));
  // By tag when there is one, so the tag moves in the same request; the
  // digest is checked against the response below.
  std::string identifier = ref.tag.empty() ? ref.Identifier() : ref.tag;
  http::HttpRequest put = http::MakeRequest(
      "PUT",
      fmt::format("{}/v2/{}/manifests/{}", endpoint.base_url, ref.repository.path, identifier),
      true);
  put.body = &body;
  put.headers.Add("Content-Type", std::string(media_type));
  TP_ASSIGN_OR_RETURN(http::HttpResponse response,
                      Send(endpoint, PushScopes(ref.repository.path), put));
  if (response.status != 201) return StatusFromResponse(response, context);
  std::optional<std::string> stored = response.headers.Get("Docker-Content-Digest");
  if (stored.has_value() && *stored != digest.ToString()) {
    return absl::DataLossError(fmt::format("{}: we sent {} but the registry reports {}", context,
                                           digest.ToString(), *stored));
  }
  return digest;
}

absl::Status RegistryClient::DeleteManifest(const Reference& ref) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(ref.repository.registry));
  http::HttpRequest del = http::MakeRequest("DELETE",
                                            fmt::format("{}/v2/{}/manifests/{}", endpoint.base_url,
                                                        ref.repository.path, ref.Identifier()),
                                            true);
  TP_ASSIGN_OR_RETURN(http::HttpResponse response,
                      Send(endpoint, {RepositoryScope(ref.repository.path, {"delete"})}, del));
  if (response.status == 202 || response.status == 200) return absl::OkStatus();
  return StatusFromResponse(response, fmt::format("deleting manifest {}", ref.String()));
}

absl::StatusOr<ManifestBlob> RegistryClient::GetManifest(const Reference& ref,
                                                         const std::vector<std::string>& accept) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(ref.repository.registry));
  std::string context = fmt::format("pulling manifest {}", ref.String());
  ManifestBlob manifest;
  http::HttpRequest get = http::MakeRequest("GET",
                                            fmt::format("{}/v2/{}/manifests/{}", endpoint.base_url,
                                                        ref.repository.path, ref.Identifier()),
                                            true);
  get.response_sink = [&](std::string_view chunk) {
    if (manifest.bytes.size() + chunk.size() > http::kMaxJsonBodyBytes) {
      return absl::ResourceExhaustedError("the manifest is over 4 MiB");
    }
    manifest.bytes.append(chunk);
    return absl::OkStatus();
  };
  // The registry serves, or converts, the manifest according to Accept;
  // Content-Type then says which type came.
  for (const std::string& type : accept) get.headers.Add("Accept", type);
  absl::StatusOr<http::HttpResponse> response =
      Send(endpoint, PullScopes(ref.repository.path), get);
  if (!response.ok()) {
    return base::WithContext(response.status(), context);
  }
  if (response->status != 200) return StatusFromResponse(*response, context);
  manifest.media_type = MediaTypeOf(*response);
  oci::Digest expected = ref.digest;
  if (expected.empty()) {
    // Only a digest we can parse can be checked; a registry that omits the
    // header is still served (the bytes hashed with sha256).
    expected = oci::Digest::Parse(response->headers.Get("Docker-Content-Digest").value_or(""))
                   .value_or(oci::Digest());
  }
  manifest.digest = oci::ComputeDigest(
      manifest.bytes, expected.empty() ? oci::DigestAlgorithm::kSha256 : expected.algorithm());
  if (!expected.empty() && expected != manifest.digest) {
    return absl::DataLossError(fmt::format("{}: expected {}, received bytes hashing to {}", context,
                                           expected.ToString(), manifest.digest.ToString()));
  }
  return manifest;
}

absl::StatusOr<std::vector<std::string>> RegistryClient::ListTags(const Repository& repo) {
  TP_ASSIGN_OR_RETURN(Endpoint endpoint, EndpointFor(repo.registry));
  std::string context = fmt::format("listing tags of {}", repo.Name());
  std::vector<std::string> tags;
  // Pages are followed by their Link header, which the spec prefers over
  // building ?last= ourselves.
  std::string url = fmt::format("{}/v2/{}/tags/list?n=1000", endpoint.base_url, repo.path);
  while (!url.empty()) {
    http::HttpRequest get = http::MakeRequest("GET", url, true);
    TP_ASSIGN_OR_RETURN(http::HttpResponse response, Send(endpoint, PullScopes(repo.path), get));
    if (response.status != 200) return StatusFromResponse(response, context);
    nlohmann::json doc =
        base::ParseJson(response.body).value_or(nlohmann::json::value_t::discarded);
    if (!doc.is_object()) {
      return absl::InternalError(fmt::format("{}: the response is not a JSON object", context));
    }
    if (doc.contains("tags") && doc["tags"].is_array()) {
      for (const nlohmann::json& tag : doc["tags"]) {
        if (tag.is_string()) tags.push_back(tag);
      }
    }
    std::string next = NextLink(response);
    url = next.empty() ? "" : http::ResolveUrl(url, next);
  }
  return tags;
}

void RegistryClient::WaitForRetryAfter(const absl::Status& failure) {
  std::optional<std::string> header = RetryAfterHeader(failure);
  if (!header.has_value()) return;
  std::optional<absl::Duration> after = http::ParseRetryAfter(*header, clock_.Now());
  if (!after.has_value() || *after <= absl::ZeroDuration()) return;
  // Capped: a registry may ask for hours; waiting at most max_retry_after
  // keeps a build from hanging on one answer.
  absl::Duration wait = std::min(*after, max_retry_after_);
  TP_LOG(INFO, "the registry asked to wait {} before trying again", absl::FormatDuration(wait));
  clock_.SleepFor(wait);
}

}  // namespace trainpkg::registry
