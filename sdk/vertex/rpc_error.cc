#include "sdk/vertex/rpc_error.h"

#include "base/json_parse.h"
#include "http/status_code.h"
#include "fmt/format.h"

namespace trainpkg::sdk::vertex {
namespace {

constexpr int kLastCode = 16;  // UNAUTHENTICATED

}  // namespace

std::string StatusCodeName(absl::StatusCode code) { return absl::StatusCodeToString(code); }

std::optional<absl::StatusCode> StatusCodeFromName(std::string_view name) {
  for (int i = 0; i <= kLastCode; ++i) {
    auto code = static_cast<absl::StatusCode>(i);
    if (StatusCodeName(code) == name) return code;
  }
  return std::nullopt;
}

int HttpStatusForCode(absl::StatusCode code) {
  // google.rpc.Code's HTTP mapping (code.proto), so clients of the serve read
  // the statuses Google's APIs send.
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kCancelled:
      return 499;
    case absl::StatusCode::kInvalidArgument:
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kOutOfRange:
      return 400;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kAlreadyExists:
    case absl::StatusCode::kAborted:
      return 409;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kUnauthenticated:
      return 401;
    case absl::StatusCode::kResourceExhausted:
      return 429;
    case absl::StatusCode::kUnimplemented:
      return 501;
    case absl::StatusCode::kUnavailable:
      return 503;
    default:
      return 500;
  }
}

absl::Status StatusFromErrorReply(int http_status, std::string_view body, std::string_view what) {
  absl::StatusCode code = http::CodeForHttpStatus(http_status, http::ServerErrors::kAsGoogleApis);
  std::string message;
  nlohmann::json json = base::ParseJson(body).value_or(nlohmann::json::value_t::discarded);
  const nlohmann::json* error = nullptr;
  if (json.is_object() && json.contains("error") && json["error"].is_object()) {
    error = &json["error"];
  }
  if (error != nullptr) {
    // The status name wins: one HTTP status covers several codes (400 is
    // INVALID_ARGUMENT, FAILED_PRECONDITION or OUT_OF_RANGE).
    if (error->contains("status") && (*error)["status"].is_string()) {
      if (auto named = StatusCodeFromName((*error)["status"].get<std::string>())) code = *named;
    }
    if (error->contains("message") && (*error)["message"].is_string()) {
      message = (*error)["message"].get<std::string>();
    }
  } else {
    // Not Google's error JSON (a proxy's page, say): its start is enough to
    // recognise it, the rest would flood the message.
    message = std::string(body.substr(0, 200));
  }
  return absl::Status(
      code, fmt::format("{}: HTTP {} {}: {}", what, http_status, StatusCodeName(code), message));
}

nlohmann::json ErrorJson(const absl::Status& status,
                         const std::vector<FieldViolation>& violations) {
  nlohmann::json error = {{"code", HttpStatusForCode(status.code())},
                          {"message", std::string(status.message())},
                          {"status", StatusCodeName(status.code())}};
  if (!violations.empty()) {
    nlohmann::json fields = nlohmann::json::array();
    for (const FieldViolation& violation : violations) {
      fields.push_back({{"field", violation.field}, {"description", violation.description}});
    }
    // google.rpc.BadRequest, the detail Google's client libraries read field
    // violations from.
    error["details"] = nlohmann::json::array(
        {{{"@type", "type.googleapis.com/google.rpc.BadRequest"}, {"fieldViolations", fields}}});
  }
  return {{"error", error}};
}

}  // namespace trainpkg::sdk::vertex
