// What a push or pull reports per blob, for progress bars, logs and the
// JSON summary. Renderers live in progress_renderer.h; tests record events.
#ifndef TRAINPKG_REGISTRY_PROGRESS_H_
#define TRAINPKG_REGISTRY_PROGRESS_H_

#include <cstdint>
#include <string_view>

#include "registry/oci/descriptor.h"

namespace trainpkg::registry {

// How a blob ended up where it had to be.
enum class BlobAction {
  kExists,   // the destination already had it (registry HEAD, or the local layout)
  kMounted,  // linked from another repository of the same registry (no bytes sent)
  kPushed,   // uploaded
  kPulled,   // downloaded
  kSkipped,  // not transferred on purpose (nondistributable layers)
};

// "exists", "mounted", "pushed", "pulled", "skipped": the JSON summary's words.
std::string_view BlobActionName(BlobAction action);

enum class TransferDirection { kPush, kPull };

// Events of one transfer. Implementations must be thread-safe: blobs move
// in parallel, and each blob's events come from the thread moving it.
// For one blob: Started, any number of Advanced, then Finished — or only
// Finished when nothing had to move (kExists, kMounted) or the caller moved
// it itself (kPushed of PushOptions::uploaded).
class Progress {
 public:
  virtual ~Progress() = default;
  virtual void Started(const oci::Descriptor& blob) = 0;
  // `done` bytes of blob.size moved so far (may go back to 0 on a restart).
  virtual void Advanced(const oci::Descriptor& blob, uint64_t done) = 0;
  // `source` is the repository a mounted blob came from, else "".
  virtual void Finished(const oci::Descriptor& blob, BlobAction action,
                        std::string_view source) = 0;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_PROGRESS_H_
