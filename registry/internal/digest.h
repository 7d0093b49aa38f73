// Content digests as the registry client needs them: syntax checks and a
// streaming SHA-256 (OpenSSL). Internal until registry/oci's digest type
// replaces it.
#ifndef TRAINPKG_REGISTRY_INTERNAL_DIGEST_H_
#define TRAINPKG_REGISTRY_INTERNAL_DIGEST_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace trainpkg::registry::internal {

// OK when `digest` is "<algorithm>:<hex>" in the OCI grammar; sha256 needs 64
// and sha512 128 lowercase hex digits, other algorithms at least 32 hex digits.
// InvalidArgument saying what is wrong otherwise.
absl::Status ValidateDigest(std::string_view digest);

// Incremental SHA-256. Not thread-safe.
class Sha256 {
 public:
  Sha256();
  ~Sha256();
  Sha256(const Sha256&) = delete;
  Sha256& operator=(const Sha256&) = delete;

  void Update(std::string_view data);
  // "sha256:<64 lowercase hex>". REQUIRES: called once.
  std::string Finish();

 private:
  struct Ctx;
  std::unique_ptr<Ctx> ctx_;
};

// "sha256:<hex>" of `data`.
std::string Sha256Digest(std::string_view data);

}  // namespace trainpkg::registry::internal

#endif  // TRAINPKG_REGISTRY_INTERNAL_DIGEST_H_
