// google.rpc.Status errors as Vertex AI's REST API carries them, both ways:
//   {"error": {"code": 400, "message": "...", "status": "INVALID_ARGUMENT",
//              "details": [{"@type": "type.googleapis.com/google.rpc.BadRequest",
//                           "fieldViolations": [{"field": ..., "description": ...}]}]}}
// The code <-> HTTP status mapping is google/rpc/code.proto's.
#ifndef TRAINPKG_SDK_VERTEX_RPC_ERROR_H_
#define TRAINPKG_SDK_VERTEX_RPC_ERROR_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::vertex {

// "INVALID_ARGUMENT" etc.
std::string StatusCodeName(absl::StatusCode code);
// The inverse of StatusCodeName; nullopt for other text.
std::optional<absl::StatusCode> StatusCodeFromName(std::string_view name);

// 400 for INVALID_ARGUMENT, FAILED_PRECONDITION and OUT_OF_RANGE, 404
// NOT_FOUND, 409 ALREADY_EXISTS/ABORTED, 501 UNIMPLEMENTED, ... (code.proto).
int HttpStatusForCode(absl::StatusCode code);

// A non-2xx reply as a Status: the code from the body's "status" (else from
// the HTTP status: http/status_code.h, as code.proto), message "<what>: HTTP
// <n> <STATUS>: <message>". A body that is not a google.rpc.Status
// contributes its first 200 bytes.
absl::Status StatusFromErrorReply(int http_status, std::string_view body, std::string_view what);

struct FieldViolation {
  std::string field;
  std::string description;
};

// The error body for `status` (not OK), with a BadRequest detail when
// `violations` is not empty.
nlohmann::json ErrorJson(const absl::Status& status,
                         const std::vector<FieldViolation>& violations = {});

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_RPC_ERROR_H_
