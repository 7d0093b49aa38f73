#include "sdk/hptune/metric_file.h"

#include <cmath>
#include <string>
#include <system_error>

#include "absl/strings/numbers.h"
#include "base/bounded_file.h"
#include "base/file_util.h"
#include "base/json_parse.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::hptune {
namespace {

constexpr std::string_view kDefaultTag = "training/hptuning/metric";

// A number written as a JSON number or as its text (hypertune writes text).
std::optional<double> NumberField(const nlohmann::json& value) {
  if (value.is_number()) return value.get<double>();
  if (!value.is_string()) return std::nullopt;
  double number = 0;
  if (!absl::SimpleAtod(value.get<std::string>(), &number)) return std::nullopt;
  return number;
}

// A whole number of steps that fits int64_t (the cast of anything else is
// undefined).
std::optional<int64_t> StepCount(double number) {
  if (!(number >= -9.2e18 && number <= 9.2e18) || number != std::trunc(number)) {
    return std::nullopt;
  }
  return static_cast<int64_t>(number);
}

// The metric file's text. The trial that writes the file may be hostile
// (a container writes to its output directory): the file is read only if it
// is a regular file and not a symbolic link, and only up to the cap
// (hypertune keeps its last 100 entries).
absl::StatusOr<std::string> ReadMetricFile(const std::filesystem::path& path) {
  return base::ReadRegularFile(path, base::BoundedReadOptions{.max_bytes = kMaxMetricFileBytes,
                                                              .follow_symlinks = false,
                                                              .what = "a metric file"});
}

}  // namespace

absl::StatusOr<std::vector<jobspec::Measurement>> ParseHypertuneMetrics(
    std::string_view text, std::string_view metric_id, std::optional<absl::Time> trial_start) {
  std::vector<jobspec::Measurement> measurements;
  int line_number = 0;
  size_t begin = 0;
  while (begin < text.size()) {
    size_t end = text.find('\n', begin);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(begin, end - begin);
    begin = end + 1;
    ++line_number;
    if (line.find_first_not_of(" \t\r") == std::string_view::npos) continue;
    const nlohmann::json entry = base::ParseJson(line).value_or(nlohmann::json::value_t::discarded);
    if (!entry.is_object()) {
      return absl::InvalidArgumentError(fmt::format(
          "line {}: not a JSON object (expected one hypertune entry per line)", line_number));
    }
    const std::string id(metric_id);
    // cloudml-hypertune writes under its default tag when the trainer names none.
    const auto tag = entry.contains(id) ? entry.find(id) : entry.find(std::string(kDefaultTag));
    if (tag == entry.end()) continue;
    const std::optional<double> value = NumberField(*tag);
    if (!value) {
      return absl::InvalidArgumentError(fmt::format(
          "line {}: the value of \"{}\" is not a number: {}", line_number, tag.key(), tag->dump()));
    }
    jobspec::Measurement measurement;
    measurement.metrics.push_back({.metric_id = id, .value = *value});
    if (const auto step = entry.find("global_step"); step != entry.end()) {
      const std::optional<double> number = NumberField(*step);
      const std::optional<int64_t> steps = number ? StepCount(*number) : std::nullopt;
      if (!steps) {
        return absl::InvalidArgumentError(fmt::format(
            "line {}: global_step is not a whole number: {}", line_number, step->dump()));
      }
      measurement.step_count = *steps;
    }
    if (const auto timestamp = entry.find("timestamp"); trial_start && timestamp != entry.end() &&
                                                        timestamp->is_number() &&
                                                        std::isfinite(timestamp->get<double>())) {
      const absl::Time at = absl::FromUnixSeconds(0) + absl::Seconds(timestamp->get<double>());
      // hypertune's time.time() on the trial's side: a clock that runs behind
      // ours must not give a negative duration.
      measurement.elapsed_duration = std::max(absl::ZeroDuration(), at - *trial_start);
    }
    measurements.push_back(std::move(measurement));
  }
  return measurements;
}

absl::StatusOr<std::vector<jobspec::Measurement>> ReadHypertuneMetrics(
    const std::filesystem::path& path, std::string_view metric_id,
    std::optional<absl::Time> trial_start) {
  std::error_code error;
  if (!std::filesystem::exists(path, error)) return std::vector<jobspec::Measurement>{};
  absl::StatusOr<std::string> text = ReadMetricFile(path);
  if (!text.ok()) return text.status();
  absl::StatusOr<std::vector<jobspec::Measurement>> measurements =
      ParseHypertuneMetrics(*text, metric_id, trial_start);
  if (!measurements.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", path.string(), std::string(measurements.status().message())));
  }
  return measurements;
}

std::optional<jobspec::Measurement> SelectFinalMeasurement(
    const std::vector<jobspec::Measurement>& measurements, std::string_view metric_id,
    jobspec::MeasurementSelection selection, jobspec::GoalType goal) {
  const bool best = selection == jobspec::MeasurementSelection::kBest;
  const bool minimize = goal == jobspec::GoalType::kMinimize;
  std::optional<jobspec::Measurement> chosen;
  std::optional<double> chosen_value;
  for (const jobspec::Measurement& measurement : measurements) {
    const std::optional<double> value = jobspec::MetricValue(measurement, metric_id);
    if (!value) continue;
    // Without BEST_MEASUREMENT the last one reported wins.
    const bool better =
        !chosen_value || !best || (minimize ? *value < *chosen_value : *value > *chosen_value);
    if (better) {
      chosen = measurement;
      chosen_value = value;
    }
  }
  return chosen;
}

}  // namespace trainpkg::sdk::hptune
