// Where streamed bytes go: a layer writer chains tar -> hashing -> gzip ->
// hashing -> blob file through this one interface.
#ifndef TRAINPKG_REGISTRY_OCI_BYTE_SINK_H_
#define TRAINPKG_REGISTRY_OCI_BYTE_SINK_H_

#include <string_view>

#include "absl/status/status.h"

namespace trainpkg::oci {

class ByteSink {
 public:
  virtual ~ByteSink() = default;
  // Consumes all of `data` or returns the error that stopped it; after an
  // error the sink's contents are unspecified.
  virtual absl::Status Write(std::string_view data) = 0;
};

}  // namespace trainpkg::oci

#endif  // TRAINPKG_REGISTRY_OCI_BYTE_SINK_H_
