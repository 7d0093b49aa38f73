#include "sdk/internal/line_stream.h"

#include "base/terminal_text.h"

namespace trainpkg::sdk::internal {

void LineStream::WriteLine(std::string_view prefix, std::string_view text) {
  // Job and replica text may hold escape sequences that would drive the
  // user's terminal.
  WriteOutput(prefix, base::TerminalSafe(text, base::TextLayout::kMultiLine));
}

void LineStream::WriteOutput(std::string_view prefix, std::string_view text) {
  if (out_ == nullptr) return;
  std::lock_guard<std::mutex> lock(mu_);
  *out_ << base::TerminalSafe(prefix) << text << '\n';
  out_->flush();
}

}  // namespace trainpkg::sdk::internal
