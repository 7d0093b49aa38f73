#include "registry/oci/annotations.h"

#include "fmt/format.h"

namespace trainpkg::oci {

std::string FormatRfc3339(absl::Time time) {
  // %S prints whole seconds: sub-seconds are dropped.
  return absl::FormatTime("%Y-%m-%dT%H:%M:%SZ", time, absl::UTCTimeZone());
}

absl::StatusOr<absl::Time> ParseRfc3339(std::string_view text) {
  absl::Time time;
  std::string error;
  if (!absl::ParseTime(absl::RFC3339_full, std::string(text), &time, &error)) {
    return absl::InvalidArgumentError(
        fmt::format("\"{}\" is not an RFC 3339 date-time ({})", text, error));
  }
  return time;
}

Annotations ProvenanceAnnotations(const ImageProvenance& provenance) {
  Annotations out;
  auto put = [&out](std::string_view key, const std::string& value) {
    if (!value.empty()) out.emplace(std::string(key), value);
  };
  put(annotations::kCreated, provenance.created);
  put(annotations::kSource, provenance.source);
  put(annotations::kRevision, provenance.revision);
  put(annotations::kBaseName, provenance.base_name);
  put(annotations::kBaseDigest, provenance.base_digest);
  return out;
}

}  // namespace trainpkg::oci
