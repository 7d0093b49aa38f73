// The one way trainpkg reads JSON text that comes from outside the process
// (files, HTTP bodies, command output, environment variables): nlohmann's
// parser with a cap on the text's size and on how deeply arrays and objects
// nest, checked while parsing, so a hostile document ("[[[[..." 200000 deep)
// never becomes a json value that later recursive code (dump, copy,
// comparison) would overflow the stack on.
#ifndef TRAINPKG_BASE_JSON_PARSE_H_
#define TRAINPKG_BASE_JSON_PARSE_H_

#include <cstddef>
#include <string_view>

#include "absl/status/statusor.h"
#include "nlohmann/json.hpp"

namespace trainpkg::base {

// Generous for real documents (job files, OCI manifests, Kubernetes and
// Vertex replies nest fewer than 20 levels) and small enough that recursive
// code over the value stays far from the stack's end.
inline constexpr int kDefaultMaxJsonDepth = 128;
// Parsed values take up to ~16x their text (a one-byte number becomes a
// 16-byte json), so 16 MiB of text stays within a few hundred MB.
inline constexpr size_t kDefaultMaxJsonBytes = size_t{16} << 20;

struct JsonLimits {
  // Arrays and objects may nest this many levels: [1] is 1, [[1]] is 2.
  int max_depth = kDefaultMaxJsonDepth;
  size_t max_bytes = kDefaultMaxJsonBytes;
};

// Parses one JSON document (surrounding whitespace allowed). Errors are
// InvalidArgument and start with "invalid JSON: ":
//   "invalid JSON: parse error at line 3, column 5: syntax error ..."
//   "invalid JSON: arrays and objects nest deeper than the limit of 128
//    levels at line 1, column 129"
//   "invalid JSON: the text is 20000000 bytes; the limit is 16777216 bytes"
// `Json` is nlohmann::json or nlohmann::ordered_json.
template <typename Json = nlohmann::json>
absl::StatusOr<Json> ParseJson(std::string_view text, const JsonLimits& limits = {});

extern template absl::StatusOr<nlohmann::json> ParseJson<nlohmann::json>(std::string_view,
                                                                         const JsonLimits&);
extern template absl::StatusOr<nlohmann::ordered_json> ParseJson<nlohmann::ordered_json>(
    std::string_view, const JsonLimits&);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_JSON_PARSE_H_
