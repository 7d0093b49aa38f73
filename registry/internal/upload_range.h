// The byte-range headers of the chunked upload protocol (distribution spec
// "Pushing a blob in chunks"): Content-Range on a PATCH and the Range a
// registry reports for a session.
#ifndef TRAINPKG_REGISTRY_INTERNAL_UPLOAD_RANGE_H_
#define TRAINPKG_REGISTRY_INTERNAL_UPLOAD_RANGE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::registry::internal {

// "<start>-<end>" (inclusive) for `length` bytes at `offset`.
// REQUIRES: length > 0.
std::string ContentRange(uint64_t offset, uint64_t length);

// How many bytes a session holds, from a Range header "0-<end>" (a "bytes="
// prefix is accepted): end + 1. "0-0" reads as 0: distribution reports the
// same for an empty session and a one-byte one, and chunked uploads never
// send a one-byte first chunk (chunks are at least kMinChunkSize). A missing
// header (nullopt) is 0. InvalidArgument quoting the header when it is not
// of that form or does not start at 0.
absl::StatusOr<uint64_t> UploadedBytes(const std::optional<std::string>& range);

// The smallest chunk blob_upload sends (except a blob's last chunk).
inline constexpr uint64_t kMinChunkSize = 1024;

}  // namespace trainpkg::registry::internal

#endif  // TRAINPKG_REGISTRY_INTERNAL_UPLOAD_RANGE_H_
