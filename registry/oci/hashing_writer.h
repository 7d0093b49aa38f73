// A ByteSink that hashes and counts what passes through it, then forwards it.
//
//   HashingWriter diff_id(&gzip);        // uncompressed side
//   HashingWriter digest(&blob_writer);  // compressed side, inside gzip
//   ... tar into diff_id ...
//   Digest d = diff_id.Finish();
//
// `next` (not owned, may be null: hash only) must outlive the writer. Not
// thread-safe.
#ifndef TRAINPKG_REGISTRY_OCI_HASHING_WRITER_H_
#define TRAINPKG_REGISTRY_OCI_HASHING_WRITER_H_

#include <cstdint>

#include "registry/oci/byte_sink.h"
#include "registry/oci/digest.h"
#include "registry/oci/digest_builder.h"

namespace trainpkg::oci {

class HashingWriter final : public ByteSink {
 public:
  explicit HashingWriter(ByteSink* next = nullptr,
                         DigestAlgorithm algorithm = DigestAlgorithm::kSha256)
      : next_(next), builder_(algorithm) {}

  // Forwards to `next` first; only bytes `next` accepted are hashed, so the
  // digest always describes what reached the next sink. REQUIRES: before Finish().
  absl::Status Write(std::string_view data) override;

  // Bytes written so far.
  int64_t size() const { return builder_.size(); }
  // Digest of everything written. REQUIRES: called at most once.
  Digest Finish() { return builder_.Finish(); }

 private:
  ByteSink* next_;
  DigestBuilder builder_;
};

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_HASHING_WRITER_H_
