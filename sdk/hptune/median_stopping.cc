#include "sdk/hptune/median_stopping.h"

#include <algorithm>

#include "absl/time/time.h"
#include "base/check.h"
#include "fmt/format.h"

namespace trainpkg::sdk::hptune {
namespace {

// True when `a` is strictly worse than `b` under `goal`.
bool Worse(double a, double b, jobspec::GoalType goal) {
  return goal == jobspec::GoalType::kMinimize ? a > b : a < b;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  size_t n = values.size();
  return n % 2 == 1 ? values[n / 2] : (values[n / 2 - 1] + values[n / 2]) / 2;
}

}  // namespace

Curve CurveFromMeasurements(const std::vector<jobspec::Measurement>& measurements,
                            std::string_view metric_id, bool use_elapsed_duration) {
  Curve curve;
  for (const jobspec::Measurement& measurement : measurements) {
    std::optional<double> value = jobspec::MetricValue(measurement, metric_id);
    if (!value.has_value()) continue;
    double at = static_cast<double>(measurement.step_count);
    if (use_elapsed_duration) {
      if (!measurement.elapsed_duration.has_value()) continue;
      at = absl::ToDoubleSeconds(*measurement.elapsed_duration);
    }
    curve.push_back({at, *value});
  }
  return curve;
}

StoppingDecision MedianStoppingDecision(const Curve& running, const std::vector<Curve>& completed,
                                        jobspec::GoalType goal, int min_completed_trials) {
  TP_CHECK(min_completed_trials >= 1, "min_completed_trials is {}", min_completed_trials);
  if (running.empty()) return {};
  const double last_at = running.back().at;
  double best = running.front().objective;
  for (const CurvePoint& point : running) {
    if (point.at <= last_at && Worse(best, point.objective, goal)) best = point.objective;
  }
  std::vector<double> running_averages;
  for (const Curve& curve : completed) {
    double sum = 0;
    int count = 0;
    for (const CurvePoint& point : curve) {
      if (point.at > last_at) continue;
      sum += point.objective;
      ++count;
    }
    if (count > 0) running_averages.push_back(sum / count);
  }
  if (static_cast<int>(running_averages.size()) < min_completed_trials) return {};
  const double median = Median(running_averages);
  if (!Worse(best, median, goal)) return {};
  return {true, fmt::format("best objective {} up to {} is worse than the median {} of the running "
                            "averages of {} completed trials",
                            best, last_at, median, running_averages.size())};
}

}  // namespace trainpkg::sdk::hptune
