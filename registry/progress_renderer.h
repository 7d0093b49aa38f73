// The two ways a push or pull shows its Progress: on a terminal, one line
// per blob redrawn in place (docker's layout: "3f4c1a2b9d0e: Pushing
// [=====>    ]  12.3MB/45.6MB  30.1MB/s"), each line fitted to the
// terminal's width as it is at that redraw; elsewhere (CI logs, pipes),
// one line when a blob starts moving and one when it is done, never a
// redraw. Both are thread-safe and write only to the stream they are given.
#ifndef TRAINPKG_REGISTRY_PROGRESS_RENDERER_H_
#define TRAINPKG_REGISTRY_PROGRESS_RENDERER_H_

#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <ostream>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "base/clock.h"
#include "registry/progress.h"

namespace trainpkg::registry {

// "0B", "999B", "1.5kB", "12.3MB", "1.2GB" (powers of 1000, as docker).
std::string FormatByteCount(uint64_t bytes);

// The line a blob shows in both renderers: its first 12 hex digits, then
// the state ("Layer already exists", "Mounted from team/base", "Pushed",
// "Pulled", "Already exists", "Skipped (nondistributable)").
std::string FinishedLine(const oci::Descriptor& blob, TransferDirection direction,
                         BlobAction action, std::string_view source);

// `line` fitted to `columns` - 1 characters (the last column is left free:
// writing there makes some terminals wrap, and the redraw would count one
// row too few): the bar narrows down to 10 cells, then goes, then the rate
// goes, then the end of the line is cut.
std::string FitProgressLine(const oci::Descriptor& blob, TransferDirection direction, uint64_t done,
                            absl::Duration elapsed, size_t columns);

class TtyProgress final : public Progress {
 public:
  // `out` and `clock` must outlive the renderer. `columns` says the
  // terminal's width; it is asked at every redraw, so a resized window
  // (SIGWINCH) is followed from the next redraw on. Redraws on progress at
  // most every `min_redraw` (a state change always redraws).
  TtyProgress(std::ostream& out, TransferDirection direction, base::Clock& clock,
              std::function<size_t()> columns, absl::Duration min_redraw = absl::Milliseconds(100));

  void Started(const oci::Descriptor& blob) override;
  void Advanced(const oci::Descriptor& blob, uint64_t done) override;
  void Finished(const oci::Descriptor& blob, BlobAction action, std::string_view source) override;

 private:
  struct Line {
    oci::Descriptor blob;
    absl::Time started;
    uint64_t done = 0;
    std::string finished;  // FinishedLine once the blob is done
  };
  Line& LineFor(const oci::Descriptor& blob);  // REQUIRES: mu_ held
  void Redraw();                               // REQUIRES: mu_ held

  std::ostream& out_;
  TransferDirection direction_;
  base::Clock& clock_;
  std::function<size_t()> columns_;
  absl::Duration min_redraw_;
  std::mutex mu_;
  std::vector<std::string> order_;  // digests, first event first
  std::map<std::string, Line> lines_;
  size_t drawn_ = 0;  // lines on screen from the last redraw
  absl::Time last_redraw_ = absl::InfinitePast();
};

class PlainProgress final : public Progress {
 public:
  PlainProgress(std::ostream& out, TransferDirection direction, base::Clock& clock);

  void Started(const oci::Descriptor& blob) override;
  void Advanced(const oci::Descriptor&, uint64_t) override {}
  void Finished(const oci::Descriptor& blob, BlobAction action, std::string_view source) override;

 private:
  std::ostream& out_;
  TransferDirection direction_;
  base::Clock& clock_;
  std::mutex mu_;
  std::map<std::string, absl::Time> started_;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_PROGRESS_RENDERER_H_
