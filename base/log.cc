#include "base/log.h"

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/terminal_text.h"

namespace trainpkg::base {
namespace {

LogLevel LevelFromEnv() {
  const char* value = std::getenv("TRAINPKG_LOG_LEVEL");
  if (value == nullptr) return LogLevel::kWARNING;
  auto parsed = ParseLogLevel(value);
  return parsed.ok() ? *parsed : LogLevel::kWARNING;
}

std::atomic<int>& Threshold() {
  static std::atomic<int> threshold{static_cast<int>(LevelFromEnv())};
  return threshold;
}

std::mutex& SinkMutex() {
  static std::mutex* mu = new std::mutex();
  return *mu;
}

LogSink* g_sink = nullptr;  // Guarded by SinkMutex().

char LevelLetter(LogLevel level) {
  switch (level) {
    case LogLevel::kDEBUG:
      return 'D';
    case LogLevel::kINFO:
      return 'I';
    case LogLevel::kWARNING:
      return 'W';
    case LogLevel::kERROR:
      return 'E';
  }
  return '?';
}

std::string_view BaseName(const char* file) {
  std::string_view path(file);
  auto slash = path.rfind('/');
  return slash == std::string_view::npos ? path : path.substr(slash + 1);
}

}  // namespace

void SetLogLevel(LogLevel level) { Threshold().store(static_cast<int>(level)); }

LogLevel GetLogLevel() { return static_cast<LogLevel>(Threshold().load()); }

bool LogEnabled(LogLevel level) { return static_cast<int>(level) >= Threshold().load(); }

absl::StatusOr<LogLevel> ParseLogLevel(std::string_view text) {
  std::string lower = absl::AsciiStrToLower(std::string(text));
  if (lower == "debug") return LogLevel::kDEBUG;
  if (lower == "info") return LogLevel::kINFO;
  if (lower == "warning" || lower == "warn") return LogLevel::kWARNING;
  if (lower == "error") return LogLevel::kERROR;
  return absl::InvalidArgumentError(
      absl::StrCat("unknown log level '", std::string(text), "'; valid levels: debug, info, warning, error"));
}

void SetLogSink(LogSink* sink) {
  std::lock_guard<std::mutex> lock(SinkMutex());
  g_sink = sink;
}

void LogMessage(LogLevel level, const char* file, int line, std::string_view message) {
  auto now = std::chrono::system_clock::now();
  std::time_t secs = std::chrono::system_clock::to_time_t(now);
  auto millis =
      std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count() % 1000;
  std::tm tm_utc{};
  gmtime_r(&secs, &tm_utc);
  std::string text = fmt::format(
      "{} {:02}:{:02}:{:02}.{:03} {}:{}] {}", LevelLetter(level), tm_utc.tm_hour, tm_utc.tm_min,
      tm_utc.tm_sec, millis, BaseName(file), line, TerminalSafe(message, TextLayout::kMultiLine));
  std::lock_guard<std::mutex> lock(SinkMutex());
  if (g_sink != nullptr) {
    g_sink->Write(level, text);
    return;
  }
  std::fprintf(stderr, "%s\n", text.c_str());
}

}  // namespace trainpkg::base
