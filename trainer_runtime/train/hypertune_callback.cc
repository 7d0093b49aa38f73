#include "trainer_runtime/train/hypertune_callback.h"

#include <optional>

#include "fmt/format.h"

namespace trainpkg::train {

absl::StatusOr<std::unique_ptr<HypertuneCallback>> HypertuneCallback::Create(
    HypertuneReporter reporter, std::string_view metric, std::string_view tag) {
  EpochLogs probe;
  probe.val_loss = 0;
  probe.val_accuracy = 0;
  if (!MetricValue(probe, metric)) {
    return absl::InvalidArgumentError(fmt::format(
        "hypertune metric '{}': want loss, accuracy, val_loss or val_accuracy", metric));
  }
  return std::unique_ptr<HypertuneCallback>(
      new HypertuneCallback(std::move(reporter), std::string(metric), std::string(tag)));
}

absl::Status HypertuneCallback::OnEpochEnd(TrainContext& context, const EpochLogs& logs) {
  if (!context.strategy.is_chief()) return absl::OkStatus();
  std::optional<double> value = MetricValue(logs, metric_);
  if (!value) {
    return absl::FailedPreconditionError(
        fmt::format("hypertune metric '{}' needs validation data, and Fit has none", metric_));
  }
  return reporter_.Report(tag_, *value, logs.epoch + 1);
}

}  // namespace trainpkg::train
