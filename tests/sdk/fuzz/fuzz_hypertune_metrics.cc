// Fuzz target: any bytes as a trial's hypertune metric file (one JSON
// object per line, cloudml-hypertune's format), parsed for metric
// "accuracy" and reduced to a final measurement both ways (last, best).
// Must never crash, hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/time/time.h"
#include "sdk/hptune/metric_file.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<jobspec::Measurement>> measurements =
      sdk::hptune::ParseHypertuneMetrics(text, "accuracy", absl::FromUnixSeconds(1800000000));
  if (!measurements.ok()) return 0;
  (void)sdk::hptune::SelectFinalMeasurement(*measurements, "accuracy",
                                            jobspec::MeasurementSelection::kLast,
                                            jobspec::GoalType::kMaximize);
  (void)sdk::hptune::SelectFinalMeasurement(*measurements, "accuracy",
                                            jobspec::MeasurementSelection::kBest,
                                            jobspec::GoalType::kMinimize);
  return 0;
}
