#include "trainer_runtime/train/strategy.h"

#include "base/status_macros.h"

namespace trainpkg::train {

absl::StatusOr<std::vector<double>> SumAcrossReplicas(Strategy& strategy,
                                                      std::span<const double> values) {
  TP_ASSIGN_OR_RETURN(std::vector<double> all, strategy.GatherFromReplicas(values));
  std::vector<double> sum(values.size(), 0.0);
  for (int r = 0; r < strategy.num_replicas(); ++r) {
    for (size_t i = 0; i < values.size(); ++i) sum[i] += all[r * values.size() + i];
  }
  return sum;
}

}  // namespace trainpkg::train
