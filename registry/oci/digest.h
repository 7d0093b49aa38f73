// A content digest, `<algorithm>:<encoded>`, as OCI descriptors carry it.
//
//   auto d = Digest::Parse("sha256:e3b0c442...");   // InvalidArgument when malformed
//   d->ToString();  d->hex();
//
// Only the registered algorithms are accepted: sha256 (64 lowercase hex
// digits) and sha512 (128). Any other algorithm, even a well-formed one, is
// InvalidArgument "unsupported digest algorithm". Value type; thread-compatible.
#ifndef TRAINPKG_REGISTRY_OCI_DIGEST_H_
#define TRAINPKG_REGISTRY_OCI_DIGEST_H_

#include <compare>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace trainpkg::oci {

enum class DigestAlgorithm { kSha256, kSha512 };

// "sha256" / "sha512".
std::string_view DigestAlgorithmName(DigestAlgorithm algorithm);
// Number of hex digits of the algorithm's encoded form (64 / 128).
size_t DigestHexLength(DigestAlgorithm algorithm);

class Digest {
 public:
  // The empty digest: what a default-constructed descriptor holds. empty()
  // is true and ToString() is "". Parse never returns it.
  Digest() = default;

  // Parses `algorithm:encoded`. InvalidArgument naming the text and the
  // problem (grammar, unknown algorithm, length, non-lowercase-hex).
  static absl::StatusOr<Digest> Parse(std::string_view text);
  // From an encoded value; InvalidArgument when `hex` is not the algorithm's
  // length of lowercase hex digits.
  static absl::StatusOr<Digest> FromHex(DigestAlgorithm algorithm, std::string_view hex);

  bool empty() const { return hex_.empty(); }
  // REQUIRES: !empty() for a meaningful value (kSha256 otherwise).
  DigestAlgorithm algorithm() const { return algorithm_; }
  std::string_view algorithm_name() const;
  // The encoded part (lowercase hex).
  const std::string& hex() const { return hex_; }
  // "sha256:<hex>", or "" for the empty digest.
  std::string ToString() const;

  friend bool operator==(const Digest&, const Digest&) = default;
  friend std::strong_ordering operator<=>(const Digest&, const Digest&) = default;

 private:
  Digest(DigestAlgorithm algorithm, std::string hex)
      : algorithm_(algorithm), hex_(std::move(hex)) {}

  DigestAlgorithm algorithm_ = DigestAlgorithm::kSha256;
  std::string hex_;
};

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_DIGEST_H_
