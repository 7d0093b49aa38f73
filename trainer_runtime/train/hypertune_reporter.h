// Reports hyperparameter-tuning metrics the way cloudml-hypertune does
// (hypertune.py, v0.1.0), to the file Vertex's tuning service reads:
//   file   CLOUD_ML_HP_METRIC_FILE, default /tmp/hypertune/output.metrics
//   trial  CLOUD_ML_TRIAL_ID, default "0"
// Each Report appends an entry, keeps the last 100, and rewrites the whole
// file, one entry per line, each exactly Python's
//   json.dumps({"timestamp": time.time(), "trial": str(trial),
//               tag: str(float(value)), "global_step": str(int(step) if step else 0),
//               "checkpoint_path": checkpoint_path}, sort_keys=True)
// e.g. {"checkpoint_path": "", "global_step": "1000", "my_metric_tag": "0.987",
//       "timestamp": 1525851440.123456, "trial": "0"}
// (separators ", " and ": ", every value a string except timestamp). The
// rewrite is atomic (temporary file + rename). Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_HYPERTUNE_REPORTER_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_HYPERTUNE_REPORTER_H_

#include <cstdint>
#include <deque>
#include <filesystem>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "base/clock.h"
#include "base/environment.h"

namespace trainpkg::train {

inline constexpr std::string_view kDefaultHypertuneMetricFile = "/tmp/hypertune/output.metrics";
inline constexpr std::string_view kDefaultHypertuneMetricTag = "training/hptuning/metric";
inline constexpr size_t kHypertuneEntriesKept = 100;

class HypertuneReporter {
 public:
  // `clock` gives the entries' timestamps; it must outlive the reporter.
  HypertuneReporter(std::filesystem::path metric_file, std::string trial_id,
                    base::Clock& clock = base::RealClock())
      : metric_file_(std::move(metric_file)), trial_id_(std::move(trial_id)), clock_(&clock) {}

  static HypertuneReporter FromEnvironment(const base::Environment& env,
                                           base::Clock& clock = base::RealClock());

  const std::filesystem::path& metric_file() const { return metric_file_; }
  const std::string& trial_id() const { return trial_id_; }

  // An empty tag is kDefaultHypertuneMetricTag. The filesystem's error when
  // the file cannot be written (the entry is kept for the next rewrite).
  absl::Status Report(std::string_view tag, double value, int64_t global_step = 0,
                      std::string_view checkpoint_path = "");

 private:
  std::filesystem::path metric_file_;
  std::string trial_id_;
  base::Clock* clock_;  // not owned; never null
  std::deque<std::string> lines_;
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_HYPERTUNE_REPORTER_H_
