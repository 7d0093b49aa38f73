#include "trainer_runtime/nn/mean_metric.h"

#include "base/check.h"

namespace trainpkg::nn {

void MeanMetric::Update(double value, double weight) {
  TP_CHECK(weight >= 0.0, "mean metric weight {}", weight);
  weighted_sum_ += value * weight;
  total_weight_ += weight;
}

double MeanMetric::Result() const {
  return total_weight_ == 0.0 ? 0.0 : weighted_sum_ / total_weight_;
}

void MeanMetric::Reset() {
  weighted_sum_ = 0.0;
  total_weight_ = 0.0;
}

}  // namespace trainpkg::nn
