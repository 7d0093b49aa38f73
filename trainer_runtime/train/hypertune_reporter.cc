#include "trainer_runtime/train/hypertune_reporter.h"

#include <map>
#include <optional>

#include "base/file_util.h"
#include "trainer_runtime/train/internal/python_format.h"

namespace trainpkg::train {

HypertuneReporter HypertuneReporter::FromEnvironment(const base::Environment& env,
                                                     base::Clock& clock) {
  std::optional<std::string> file = env.Get("CLOUD_ML_HP_METRIC_FILE");
  std::optional<std::string> trial = env.Get("CLOUD_ML_TRIAL_ID");
  // os.environ.get(name, default): a variable set to "" is used as "".
  return HypertuneReporter(file ? *file : std::string(kDefaultHypertuneMetricFile),
                           trial ? *trial : "0", clock);
}

absl::Status HypertuneReporter::Report(std::string_view tag, double value, int64_t global_step,
                                       std::string_view checkpoint_path) {
  using internal::PythonFloatRepr;
  using internal::PythonJsonString;
  // The dict in hypertune.py's order (a tag equal to another key replaces
  // that key's value, as in Python); std::map sorts keys by UTF-8 bytes,
  // which is sort_keys' code point order.
  std::map<std::string, std::string> entry;
  entry["timestamp"] = PythonFloatRepr(absl::ToUnixMicros(clock_->Now()) / 1e6);
  entry["trial"] = PythonJsonString(trial_id_);
  entry[tag.empty() ? std::string(kDefaultHypertuneMetricTag) : std::string(tag)] =
      PythonJsonString(PythonFloatRepr(value));
  entry["global_step"] = PythonJsonString(std::to_string(global_step));
  entry["checkpoint_path"] = PythonJsonString(checkpoint_path);
  std::string line = "{";
  for (const auto& [key, json] : entry) {
    if (line.size() > 1) line += ", ";
    line += PythonJsonString(key) + ": " + json;
  }
  line += "}\n";
  lines_.push_back(std::move(line));
  while (lines_.size() > kHypertuneEntriesKept) lines_.pop_front();
  std::string contents;
  for (const std::string& l : lines_) contents += l;
  return base::WriteFileAtomic(metric_file_, contents);
}

}  // namespace trainpkg::train
