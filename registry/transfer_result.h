// What a push or pull did, blob by blob: the data behind the final summary
// and `--format json`.
#ifndef TRAINPKG_REGISTRY_TRANSFER_RESULT_H_
#define TRAINPKG_REGISTRY_TRANSFER_RESULT_H_

#include <string>
#include <vector>

#include "registry/oci/descriptor.h"
#include "registry/progress.h"

namespace trainpkg::registry {

struct BlobReport {
  oci::Descriptor descriptor{};
  BlobAction action = BlobAction::kPushed;
  std::string source{};  // the repository a mounted blob came from
};

struct TransferResult {
  // Where the image went (push: "host/repo:tag") or came from (pull).
  std::string reference{};
  // The manifest or index pushed, or the manifest pulled.
  oci::Descriptor root{};
  // Each blob once, in the order the manifests list them (config first).
  std::vector<BlobReport> blobs{};
};

// {"reference":…,"digest":…,"mediaType":…,"size":…,"blobs":[{"digest":…,
// "mediaType":…,"size":…,"action":"pushed|exists|mounted|pulled|skipped"
// [,"from":…]}]}, one line.
std::string TransferResultJson(const TransferResult& result);

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_TRANSFER_RESULT_H_
