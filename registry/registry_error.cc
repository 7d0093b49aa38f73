#include "registry/registry_error.h"

#include <vector>

#include "absl/strings/cord.h"
#include "base/json_parse.h"
#include "fmt/format.h"
#include "http/status_code.h"
#include "nlohmann/json.hpp"

namespace trainpkg::registry {
namespace {

constexpr char kCodePayload[] = "trainpkg.registry/oci-error-code";
constexpr char kRetryAfterPayload[] = "trainpkg.registry/retry-after";
constexpr size_t kMaxQuoted = 200;

std::string Shorten(std::string text) {
  for (char& c : text) {
    if (c == '\n' || c == '\r' || c == '\t') c = ' ';
  }
  while (!text.empty() && text.back() == ' ') text.pop_back();
  if (text.size() > kMaxQuoted) text = text.substr(0, kMaxQuoted) + "…";
  return text;
}

struct OciError {
  std::string code;
  std::string message;
  std::string detail;
};

std::vector<OciError> ParseErrors(const std::string& body) {
  std::vector<OciError> out;
  nlohmann::json doc = base::ParseJson(body).value_or(nlohmann::json::value_t::discarded);
  if (!doc.is_object() || !doc.contains("errors") || !doc["errors"].is_array()) return out;
  for (const nlohmann::json& e : doc["errors"]) {
    if (!e.is_object()) continue;
    OciError error;
    if (e.contains("code") && e["code"].is_string()) error.code = e["code"];
    if (e.contains("message") && e["message"].is_string()) error.message = e["message"];
    if (e.contains("detail") && !e["detail"].is_null()) {
      error.detail = e["detail"].is_string() ? e["detail"].get<std::string>() : e["detail"].dump();
    }
    out.push_back(std::move(error));
  }
  return out;
}

}  // namespace

absl::Status StatusFromResponse(const http::HttpResponse& response, std::string_view context) {
  std::vector<OciError> errors = ParseErrors(response.body);
  std::string text;
  for (const OciError& e : errors) {
    if (!text.empty()) text += "; ";
    text += e.code.empty() ? e.message : fmt::format("{}: {}", e.code, e.message);
    if (!e.detail.empty()) text += fmt::format(" ({})", Shorten(e.detail));
  }
  if (errors.empty() && !response.body.empty()) text = Shorten(response.body);
  if (text.empty()) {
    // A HEAD (or a terse registry) gives no body: say what the status means.
    if (response.status == 401) text = "unauthorized: authentication required (trainpkg login?)";
    if (response.status == 403) text = "denied: the credentials lack access";
  }
  std::string message = fmt::format("{}: HTTP {}", context, response.status);
  if (!text.empty()) message += ": " + text;
  // Every retryable 5xx is Unavailable: a push starts a new upload session
  // on it (blob_upload.cc).
  absl::Status status(http::CodeForHttpStatus(response.status, http::ServerErrors::kTransient),
                      message);
  if (!errors.empty() && !errors.front().code.empty()) {
    // The distribution spec's error code (BLOB_UNKNOWN, DENIED, ...) travels
    // with the Status, so callers can branch on it without parsing the message.
    status.SetPayload(kCodePayload, absl::Cord(errors.front().code));
  }
  if (std::optional<std::string> after = response.headers.Get("Retry-After")) {
    status.SetPayload(kRetryAfterPayload, absl::Cord(*after));
  }
  return status;
}

std::string RegistryErrorCode(const absl::Status& status) {
  auto payload = status.GetPayload(kCodePayload);
  return payload.has_value() ? std::string(*payload) : std::string();
}

std::optional<std::string> RetryAfterHeader(const absl::Status& status) {
  auto payload = status.GetPayload(kRetryAfterPayload);
  if (!payload.has_value()) return std::nullopt;
  return std::string(*payload);
}

}  // namespace trainpkg::registry
