// A weighted running mean (Keras's Mean metric), e.g. of the loss over an
// epoch: Update(batch_loss, batch_size) per batch, Result() at the end. The
// sums are exposed so workers can add them across replicas. Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_MEAN_METRIC_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_MEAN_METRIC_H_

namespace trainpkg::nn {

class MeanMetric {
 public:
  // REQUIRES: weight >= 0.
  void Update(double value, double weight = 1.0);
  // weighted_sum() / total_weight(), or 0 before any weight.
  double Result() const;
  void Reset();

  double weighted_sum() const { return weighted_sum_; }
  double total_weight() const { return total_weight_; }

 private:
  double weighted_sum_ = 0.0;
  double total_weight_ = 0.0;
};

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_MEAN_METRIC_H_
