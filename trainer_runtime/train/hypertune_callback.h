// Reports one metric to the hyperparameter-tuning service at the end of
// every epoch, from the chief only (the numbers are the same on every
// replica): HypertuneReporter::Report(tag, logs[metric], epoch + 1).
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_HYPERTUNE_CALLBACK_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_HYPERTUNE_CALLBACK_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "trainer_runtime/train/callback.h"
#include "trainer_runtime/train/hypertune_reporter.h"

namespace trainpkg::train {

class HypertuneCallback final : public Callback {
 public:
  // `metric`: "loss", "accuracy", "val_loss" or "val_accuracy"
  // (InvalidArgument otherwise); `tag`: the study's metric id ("" for
  // cloudml-hypertune's default tag).
  static absl::StatusOr<std::unique_ptr<HypertuneCallback>> Create(HypertuneReporter reporter,
                                                                   std::string_view metric,
                                                                   std::string_view tag);

  // FailedPrecondition for a val_ metric when Fit has no validation data;
  // the reporter's errors.
  absl::Status OnEpochEnd(TrainContext& context, const EpochLogs& logs) override;

 private:
  HypertuneCallback(HypertuneReporter reporter, std::string metric, std::string tag)
      : reporter_(std::move(reporter)), metric_(std::move(metric)), tag_(std::move(tag)) {}

  HypertuneReporter reporter_;
  std::string metric_;
  std::string tag_;
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_HYPERTUNE_CALLBACK_H_
