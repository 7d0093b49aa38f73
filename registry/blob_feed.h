// A pull's blobs, readable while they download: the cold path of a job
// whose image is not local applies each layer as its bytes arrive instead
// of after the whole image is stored (issue 20).
//
//   registry::BlobFeed feed;
//   PullOptions options;  options.feed = &feed;
//   std::thread pull([&] { pulled = PullImage(client, ref, store, tag, options); });
//   TP_ASSIGN_OR_RETURN(registry::ChosenManifest chosen, feed.WaitForManifest());
//   std::unique_ptr<oci::ByteSource> layer = feed.Open(chosen.manifest.layers[0]);
//   ... layer->Read(buffer) blocks until bytes arrive ...
//
// PullImage writes each blob to a temporary file in the layout, renamed to
// its digest once verified. A reader follows that file: it reads the bytes
// written so far and waits for more, then reads the stored blob to its end.
// When a download starts over (a registry that ignored Range), the reader
// goes on at the same offset in the new file: a blob's bytes are fixed by
// its digest, and the reader hashes what it reads, so content that differs
// between two attempts fails its digest check. Nothing the reader returns
// is verified until the reader's own digest check at the end (the
// unpacker's), as with a file.
//
// When the pull ends (PullImage returns), readers of blobs it never stored
// get its error (or FailedPrecondition when it succeeded without them: a
// non-distributable layer). Cancel() makes the pull stop at its next chunk,
// for a consumer that failed and no longer needs the image.
//
// Thread-safe; the feed must outlive its readers and the pull.
#ifndef TRAINPKG_REGISTRY_BLOB_FEED_H_
#define TRAINPKG_REGISTRY_BLOB_FEED_H_

#include <condition_variable>
#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "registry/oci/byte_source.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/image_manifest.h"

namespace trainpkg::registry {

// The image manifest a pull chose (the platform's, of an index).
struct ChosenManifest {
  oci::Descriptor descriptor;  // its digest, size, media type, platform
  std::string bytes;           // as the registry served them (digest checked)
  oci::ImageManifest manifest;
};

class BlobFeed {
 public:
  BlobFeed() = default;
  BlobFeed(const BlobFeed&) = delete;
  BlobFeed& operator=(const BlobFeed&) = delete;

  // The consumer's side.

  // Blocks until the pull has chosen the image manifest (the platform's, of
  // an index), or has failed before that (its error).
  absl::StatusOr<ChosenManifest> WaitForManifest();
  // The bytes of `blob`, as the pull writes them. Never blocks; the
  // source's Read does.
  std::unique_ptr<oci::ByteSource> Open(const oci::Descriptor& blob);
  // The consumer gave up: the pull stops at its next chunk, CANCELLED with
  // `why`'s message (whatever code `why` has: the pull did not fail, its
  // consumer did, and the consumer reports that itself).
  void Cancel(absl::Status why);

  // The pull's side (PullImage with PullOptions::feed).

  void ManifestChosen(const ChosenManifest& chosen);
  // A download of `digest` (re)starts from byte 0 into `temp_file`.
  void Downloading(const oci::Digest& digest, const std::filesystem::path& temp_file);
  // `total` bytes of `digest` are in its temporary file. CANCELLED after
  // Cancel().
  absl::Status Received(const oci::Digest& digest, uint64_t total);
  // `digest` is complete and verified at `path` (also: it was there before).
  void Stored(const oci::Digest& digest, const std::filesystem::path& path);
  // The pull is over, with `status`.
  void Finished(const absl::Status& status);

 private:
  class Reader;
  struct Blob {
    std::filesystem::path file;  // the temporary file, then the stored blob
    int attempt = 0;             // 1 for the first download, +1 per restart
    uint64_t received = 0;
    bool stored = false;
  };

  std::mutex mu_;
  std::condition_variable changed_;
  std::optional<ChosenManifest> manifest_;
  std::map<oci::Digest, Blob> blobs_;
  std::optional<absl::Status> finished_;
  absl::Status cancelled_;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_BLOB_FEED_H_
