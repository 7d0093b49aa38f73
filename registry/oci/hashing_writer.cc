#include "registry/oci/hashing_writer.h"

namespace trainpkg::oci {

absl::Status HashingWriter::Write(std::string_view data) {
  if (next_ != nullptr) {
    absl::Status status = next_->Write(data);
    if (!status.ok()) return status;
  }
  builder_.Update(data);
  return absl::OkStatus();
}

}  // namespace trainpkg::oci
