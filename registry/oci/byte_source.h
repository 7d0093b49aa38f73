// Where streamed bytes come from: a blob file in a layout, or a blob that is
// still downloading (registry/blob_feed.h). The layer unpacker reads through
// this one interface, so it can apply a layer while the pull writes it.
#ifndef TRAINPKG_REGISTRY_OCI_BYTE_SOURCE_H_
#define TRAINPKG_REGISTRY_OCI_BYTE_SOURCE_H_

#include <cstddef>
#include <filesystem>
#include <memory>
#include <span>

#include "absl/status/statusor.h"

namespace trainpkg::oci {

class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to buffer.size() bytes into `buffer` and returns how many; 0
  // only at the end of the stream. May block until bytes arrive.
  virtual absl::StatusOr<size_t> Read(std::span<char> buffer) = 0;
};

// The file at `path`, read from its start (errors name the path).
absl::StatusOr<std::unique_ptr<ByteSource>> OpenFileSource(const std::filesystem::path& path);

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_BYTE_SOURCE_H_
