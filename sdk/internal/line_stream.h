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

  // The SDK's own messages, which may quote a job's fields or a service's
  // replies: writes `prefix` and `text` through base::TerminalSafe (text
  // multi-line), then a '\n', at once, then flushes. `text` may hold several
  // lines; only the first gets the prefix. Thread-safe.
  void WriteLine(std::string_view prefix, std::string_view text);

  // A replica's output line: like WriteLine but `text` is written as the
  // program wrote it (like `docker logs`); only `prefix` is escaped.
  void WriteOutput(std::string_view prefix, std::string_view text);

 private:
  std::mutex mu_;
  std::ostream* const out_;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_LINE_STREAM_H_
