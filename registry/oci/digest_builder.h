// Streaming content digests with OpenSSL EVP.
//
//   DigestBuilder builder;               // sha256
//   builder.Update(chunk1); builder.Update(chunk2);
//   Digest d = builder.Finish();         // same as Sha256Digest(chunk1 + chunk2)
//
// A DigestBuilder is movable, not copyable, and not thread-safe: feed it from
// one thread at a time. OpenSSL failures inside the hash (allocation) abort:
// they are not recoverable conditions.
#ifndef TRAINPKG_REGISTRY_OCI_DIGEST_BUILDER_H_
#define TRAINPKG_REGISTRY_OCI_DIGEST_BUILDER_H_

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "registry/oci/digest.h"

namespace trainpkg::oci {

class DigestBuilder {
 public:
  explicit DigestBuilder(DigestAlgorithm algorithm = DigestAlgorithm::kSha256);
  ~DigestBuilder();
  DigestBuilder(DigestBuilder&&) noexcept;
  DigestBuilder& operator=(DigestBuilder&&) noexcept;
  DigestBuilder(const DigestBuilder&) = delete;
  DigestBuilder& operator=(const DigestBuilder&) = delete;

  // Hashes `data`. REQUIRES: Finish() not called yet.
  void Update(std::string_view data);
  // Bytes hashed so far.
  int64_t size() const { return size_; }
  // The digest of everything fed. REQUIRES: called at most once.
  Digest Finish();

 private:
  struct Context;
  DigestAlgorithm algorithm_;
  std::unique_ptr<Context> context_;
  int64_t size_ = 0;
  bool finished_ = false;
};

// One-shot digests of a byte string.
Digest ComputeDigest(std::string_view data, DigestAlgorithm algorithm = DigestAlgorithm::kSha256);
inline Digest Sha256Digest(std::string_view data) { return ComputeDigest(data); }

// A digest with the byte count it covers.
struct DigestAndSize {
  Digest digest{};
  int64_t size = 0;
};

// Streams the file through the hash. NotFound / PermissionDenied / Internal
// (from errno) naming the path when it cannot be read.
absl::StatusOr<DigestAndSize> DigestFile(const std::filesystem::path& path,
                                         DigestAlgorithm algorithm = DigestAlgorithm::kSha256);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_DIGEST_BUILDER_H_
