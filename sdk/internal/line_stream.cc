#include "sdk/internal/line_stream.h"

namespace trainpkg::sdk::internal {

void LineStream::WriteLine(std::string_view prefix, std::string_view text) {
  if (out_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  *out_ << prefix << text << '\n';
  out_->flush();
}

}  // namespace trainpkg::sdk::internal
