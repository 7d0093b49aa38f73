// A small leveled logger for diagnostics (not for a command's normal output).
//
//   TP_LOG(INFO, "pushed {} in {:.1f}s", ref, seconds);
//
// Lines go to stderr as "I 02:13:44.123 file.cc:12] message" unless a sink is
// installed. The threshold comes from TRAINPKG_LOG_LEVEL (debug, info, warning,
// error; default warning) or SetLogLevel(). Thread-safe.
#ifndef TRAINPKG_BASE_LOG_H_
#define TRAINPKG_BASE_LOG_H_

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "fmt/format.h"

namespace trainpkg::base {

enum class LogLevel { kDEBUG = 0, kINFO = 1, kWARNING = 2, kERROR = 3 };

// Receives formatted log lines (without trailing newline).
class LogSink {
 public:
  virtual ~LogSink() = default;
  virtual void Write(LogLevel level, std::string_view line) = 0;
};

void SetLogLevel(LogLevel level);
LogLevel GetLogLevel();
bool LogEnabled(LogLevel level);

// Accepts debug|info|warning|error (any case). InvalidArgument otherwise.
absl::StatusOr<LogLevel> ParseLogLevel(std::string_view text);

// Installs `sink` (not owned; nullptr restores stderr). The sink must outlive
// its installation.
void SetLogSink(LogSink* sink);

void LogMessage(LogLevel level, const char* file, int line, std::string_view message);

}  // namespace trainpkg::base

#define TP_LOG(level, ...)                                                           \
  do {                                                                               \
    if (::trainpkg::base::LogEnabled(::trainpkg::base::LogLevel::k##level)) {        \
      ::trainpkg::base::LogMessage(::trainpkg::base::LogLevel::k##level, __FILE__,   \
                                   __LINE__, ::fmt::format(__VA_ARGS__));            \
    }                                                                                \
  } while (0)

#endif  // TRAINPKG_BASE_LOG_H_
