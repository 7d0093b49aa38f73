#include "registry/progress_renderer.h"

#include <algorithm>

#include "fmt/format.h"

namespace trainpkg::registry {
namespace {

constexpr size_t kBarWidth = 40;
constexpr size_t kMinBarWidth = 10;

std::string ShortId(const oci::Descriptor& blob) { return blob.digest.hex().substr(0, 12); }

std::string Rate(uint64_t bytes, absl::Duration elapsed) {
  double seconds = absl::ToDoubleSeconds(elapsed);
  if (seconds <= 0) return "";
  return FormatByteCount(static_cast<uint64_t>(static_cast<double>(bytes) / seconds)) + "/s";
}

std::string Bar(uint64_t done, uint64_t total, size_t width) {
  size_t filled = total == 0 ? width : static_cast<size_t>(std::min(done, total) * width / total);
  std::string bar(filled, '=');
  if (filled < width) bar += '>';
  bar.resize(width, ' ');
  return "[" + bar + "] ";
}

// `text` cut to `width` characters (it is ASCII but for a registry's
// repository name in "Mounted from", which is ASCII too).
std::string Cut(std::string text, size_t width) {
  if (text.size() > width) text.resize(width);
  return text;
}

}  // namespace

std::string FitProgressLine(const oci::Descriptor& blob, TransferDirection direction, uint64_t done,
                            absl::Duration elapsed, size_t columns) {
  const size_t width = columns > 1 ? columns - 1 : 0;
  const uint64_t total = static_cast<uint64_t>(std::max<int64_t>(blob.size, 0));
  const std::string head = fmt::format(
      "{}: {} ", ShortId(blob), direction == TransferDirection::kPush ? "Pushing" : "Downloading");
  const std::string sizes = FormatByteCount(done) + "/" + FormatByteCount(total);
  std::string rate = Rate(done, elapsed);
  if (!rate.empty()) rate = "  " + rate;
  // "[" + bar + "] " around the bar.
  const size_t rest = head.size() + sizes.size() + rate.size() + 3;
  if (rest + kMinBarWidth <= width) {
    return head + Bar(done, total, std::min(kBarWidth, width - rest)) + sizes + rate;
  }
  if (head.size() + sizes.size() + rate.size() <= width) return head + sizes + rate;
  return Cut(head + sizes, width);
}

std::string FormatByteCount(uint64_t bytes) {
  if (bytes < 1000) return fmt::format("{}B", bytes);
  static constexpr const char* kUnits[] = {"kB", "MB", "GB", "TB"};
  double value = static_cast<double>(bytes) / 1000;
  size_t unit = 0;
  while (value >= 1000 && unit + 1 < std::size(kUnits)) {
    value /= 1000;
    ++unit;
  }
  return fmt::format("{:.1f}{}", value, kUnits[unit]);
}

std::string FinishedLine(const oci::Descriptor& blob, TransferDirection direction,
                         BlobAction action, std::string_view source) {
  std::string state;
  switch (action) {
    case BlobAction::kExists:
      state = direction == TransferDirection::kPush ? "Layer already exists" : "Already exists";
      break;
    case BlobAction::kMounted:
      state = fmt::format("Mounted from {}", source);
      break;
    case BlobAction::kPushed:
      state = "Pushed";
      break;
    case BlobAction::kPulled:
      state = "Pulled";
      break;
    case BlobAction::kSkipped:
      state = "Skipped (nondistributable)";
      break;
  }
  return fmt::format("{}: {}", ShortId(blob), state);
}

TtyProgress::TtyProgress(std::ostream& out, TransferDirection direction, base::Clock& clock,
                         std::function<size_t()> columns, absl::Duration min_redraw)
    : out_(out),
      direction_(direction),
      clock_(clock),
      columns_(std::move(columns)),
      min_redraw_(min_redraw) {}

TtyProgress::Line& TtyProgress::LineFor(const oci::Descriptor& blob) {
  std::string key = blob.digest.ToString();
  auto it = lines_.find(key);
  if (it != lines_.end()) return it->second;
  order_.push_back(key);
  return lines_.emplace(key, Line{.blob = blob, .started = clock_.Now(), .done = 0, .finished = ""})
      .first->second;
}

void TtyProgress::Redraw() {
  const size_t columns = columns_();
  const absl::Time now = clock_.Now();
  // Back to the first line drawn, then every line cleared and rewritten.
  if (drawn_ > 0) out_ << "\x1b[" << drawn_ << "A";
  for (const std::string& key : order_) {
    const Line& line = lines_[key];
    out_ << "\r\x1b[2K"
         << (line.finished.empty()
                 ? FitProgressLine(line.blob, direction_, line.done, now - line.started, columns)
                 : Cut(line.finished, columns > 1 ? columns - 1 : 0))
         << "\n";
  }
  out_.flush();
  drawn_ = order_.size();
  last_redraw_ = clock_.Now();
}

void TtyProgress::Started(const oci::Descriptor& blob) {
  std::lock_guard<std::mutex> lock(mu_);
  Line& line = LineFor(blob);
  line.started = clock_.Now();
  line.done = 0;
  Redraw();
}

void TtyProgress::Advanced(const oci::Descriptor& blob, uint64_t done) {
  std::lock_guard<std::mutex> lock(mu_);
  LineFor(blob).done = done;
  if (clock_.Now() - last_redraw_ >= min_redraw_) Redraw();
}

void TtyProgress::Finished(const oci::Descriptor& blob, BlobAction action,
                           std::string_view source) {
  std::lock_guard<std::mutex> lock(mu_);
  LineFor(blob).finished = FinishedLine(blob, direction_, action, source);
  Redraw();
}

PlainProgress::PlainProgress(std::ostream& out, TransferDirection direction, base::Clock& clock)
    : out_(out), direction_(direction), clock_(clock) {}

void PlainProgress::Started(const oci::Descriptor& blob) {
  std::lock_guard<std::mutex> lock(mu_);
  started_[blob.digest.ToString()] = clock_.Now();
  out_ << fmt::format("{}: {} {}\n", ShortId(blob),
                      direction_ == TransferDirection::kPush ? "Pushing" : "Downloading",
                      FormatByteCount(static_cast<uint64_t>(std::max<int64_t>(blob.size, 0))))
       << std::flush;
}

void PlainProgress::Finished(const oci::Descriptor& blob, BlobAction action,
                             std::string_view source) {
  std::lock_guard<std::mutex> lock(mu_);
  std::string line = FinishedLine(blob, direction_, action, source);
  auto it = started_.find(blob.digest.ToString());
  if (it != started_.end() && (action == BlobAction::kPushed || action == BlobAction::kPulled)) {
    absl::Duration elapsed = clock_.Now() - it->second;
    uint64_t size = static_cast<uint64_t>(std::max<int64_t>(blob.size, 0));
    line += fmt::format(" {} in {:.1f}s", FormatByteCount(size), absl::ToDoubleSeconds(elapsed));
    std::string rate = Rate(size, elapsed);
    if (!rate.empty()) line += fmt::format(" ({})", rate);
  }
  out_ << line << "\n" << std::flush;
}

}  // namespace trainpkg::registry
