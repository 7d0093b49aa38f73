// An std::ostream shared by threads that each write whole lines: the SDK's
// state lines and every replica's live output.
#ifndef TRAINPKG_SDK_INTERNAL_LINE_STREAM_H_
#define TRAINPKG_SDK_INTERNAL_LINE_STREAM_H_

#include <mutex>
#include <ostream>
#include <string_view>

namespace trainpkg::sdk::internal {

class LineStream {
 public:
  // `out` is not owned and may be null (then writes are dropped).
  explicit LineStream(std::ostream* out) : out_(out) {}

  // Writes `prefix`, `text` and a '\n' at once, then flushes. `text` may
  // hold several lines; only the first gets the prefix. Thread-safe.
  void WriteLine(std::string_view prefix, std::string_view text);

 private:
  std::mutex mu_;
  std::ostream* const out_;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_LINE_STREAM_H_
