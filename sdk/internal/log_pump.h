// Copies one replica's output pipe to its log file, byte for byte, and to
// the live stream line by line with a "[workerpool1-0] " prefix. One thread.
#ifndef TRAINPKG_SDK_INTERNAL_LOG_PUMP_H_
#define TRAINPKG_SDK_INTERNAL_LOG_PUMP_H_

#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "absl/status/statusor.h"
#include "sdk/internal/line_stream.h"

namespace trainpkg::sdk::internal {

class LogPump {
 public:
  // Opens (appends to) `log_file`, mode 0600 whatever the umask, and starts copying from `fd`,
  // which is not owned and must stay open until Finish() returns. `live` may be null.
  static absl::StatusOr<std::unique_ptr<LogPump>> Start(int fd,
                                                        const std::filesystem::path& log_file,
                                                        std::string prefix, LineStream* live);
  ~LogPump();  // Finish()

  LogPump(const LogPump&) = delete;
  LogPump& operator=(const LogPump&) = delete;

  // Copies what the pipe holds now (everything, once its writers are gone),
  // completes a last partial line and joins the thread. Idempotent.
  void Finish();

 private:
  LogPump(int fd, int log_fd, int stop_read, int stop_write, std::string prefix, LineStream* live);
  void Loop();
  // Returns false at end of file or on a read error.
  bool ReadOnce();
  void EmitLines(bool flush_partial);

  const int fd_;
  const int log_fd_;
  const int stop_read_;
  const int stop_write_;
  const std::string prefix_;
  LineStream* const live_;
  std::string pending_;  // bytes after the last '\n'; only the thread touches it
  std::thread thread_;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_LOG_PUMP_H_
