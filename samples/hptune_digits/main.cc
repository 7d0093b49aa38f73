// hptune_digits: the trainer of the hyperparameter tuning sample. Trains a
// one-hidden-layer MLP on the 8x8 digits with SGD and momentum and reports
// the held-out accuracy to the tuning service after every epoch.
//
//   hptune_digits [--learning_rate=0.01] [--momentum=0.9] [--num_units=64]
//       [--epochs=5] [--batch_size=32] [--seed=42] [--data=PATH]
//
// Model: [b, 64] -> Dense num_units -> ReLU -> Dense 10. Data: --data, else
// $TRAINPKG_DATA_DIR/digits.csv.gz, else build/data/digits.csv.gz, the
// reference 80/20 split. Metric: the held-out accuracy per epoch through the
// runtime's HypertuneReporter (file CLOUD_ML_HP_METRIC_FILE, trial
// CLOUD_ML_TRIAL_ID, tag CLOUD_ML_HP_METRIC_TAG, default "accuracy"), so
// the tuning service sees intermediate measurements. Last line:
// accuracy=<held-out accuracy after the last epoch>.
//
// Exit status: 0 on success, 1 when training fails, 2 for a usage error.
#include <cmath>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/numbers.h"
#include "base/environment.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "samples/common/flags.h"
#include "samples/digits_multiworker/global_batch_source.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/data/digits.h"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/nn/sgd.h"
#include "trainer_runtime/train/fit.h"
#include "trainer_runtime/train/hypertune_callback.h"
#include "trainer_runtime/train/multi_worker_mirrored_strategy.h"

namespace {

namespace train = ::trainpkg::train;
namespace nn = ::trainpkg::nn;
namespace data = ::trainpkg::data;

struct Flags {
  double learning_rate = 0.01;
  double momentum = 0.9;
  int64_t num_units = 64;
  int epochs = 5;
  int64_t batch_size = 32;
  uint64_t seed = 42;
  std::string data;
};

// A whole number >= min that may come as "64" or "64.0" (a DISCRETE
// parameter's values are doubles).
template <typename Int>
void AddWholeNumber(CLI::App& app, const std::string& name, Int& out, double min,
                    const std::string& help) {
  app.add_option_function<double>(
         name, [&out](double value) { out = static_cast<Int>(value); }, help)
      ->default_str(std::to_string(out))
      ->check(CLI::Validator(
          [min](std::string& text) -> std::string {
            double value = 0;
            if (absl::SimpleAtod(text, &value) && value >= min && value == std::floor(value)) {
              return "";
            }
            return fmt::format("{} is not a whole number >= {}", text, min);
          },
          ""))
      ->type_name(fmt::format("INT>={}", min));
}

void AddFlags(CLI::App& app, Flags& flags) {
  app.add_option("--learning_rate", flags.learning_rate, "SGD's learning rate")
      ->capture_default_str()
      ->check(trainpkg::samples::AboveZero());
  app.add_option("--momentum", flags.momentum, "SGD's momentum, in [0, 1)")
      ->capture_default_str()
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            double value = 0;
            if (absl::SimpleAtod(text, &value) && value >= 0 && value < 1) return "";
            return text + " is not in [0, 1)";
          },
          "[0,1)"));
  AddWholeNumber(app, "--num_units", flags.num_units, 1, "hidden units");
  AddWholeNumber(app, "--epochs", flags.epochs, 1, "epochs");
  AddWholeNumber(app, "--batch_size", flags.batch_size, 1, "batch size");
  AddWholeNumber(app, "--seed", flags.seed, 0, "initialisation and shuffling seed");
  app.add_option("--data", flags.data, "digits.csv.gz (default: $TRAINPKG_DATA_DIR/digits.csv.gz)");
}

absl::Status Run(const Flags& flags, const trainpkg::base::Environment& env) {
  TP_ASSIGN_OR_RETURN(trainpkg::runtime::ClusterInfo info,
                      trainpkg::runtime::ResolveClusterInfo(env));
  const std::filesystem::path path =
      flags.data.empty() ? data::DigitsPath(env, "build/data") : std::filesystem::path(flags.data);
  TP_ASSIGN_OR_RETURN(data::Dataset digits, data::LoadDigits(path));
  TP_ASSIGN_OR_RETURN(data::TrainTestSplit split, data::SplitDigits(digits));
  trainpkg::samples::GlobalBatchOptions batches;
  batches.global_batch_size = flags.batch_size;
  batches.seed = flags.seed;
  TP_ASSIGN_OR_RETURN(std::unique_ptr<trainpkg::samples::GlobalBatchSource> train_source,
                      trainpkg::samples::GlobalBatchSource::Create(
                          std::make_shared<const data::Dataset>(std::move(split.train)), batches));
  batches.training = false;
  TP_ASSIGN_OR_RETURN(std::unique_ptr<trainpkg::samples::GlobalBatchSource> test_source,
                      trainpkg::samples::GlobalBatchSource::Create(
                          std::make_shared<const data::Dataset>(std::move(split.test)), batches));

  nn::Sequential model;
  TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(data::kDigitsFeatures, flags.num_units)));
  TP_RETURN_IF_ERROR(model.Add(std::make_unique<nn::ReLU>()));
  TP_RETURN_IF_ERROR(model.Add(nn::Dense::Create(flags.num_units, data::kDigitsClasses)));
  model.InitializeParameters(flags.seed);
  nn::SgdOptions sgd;
  sgd.learning_rate = static_cast<float>(flags.learning_rate);
  sgd.momentum = static_cast<float>(flags.momentum);
  TP_ASSIGN_OR_RETURN(std::unique_ptr<nn::Sgd> optimizer, nn::Sgd::Create(sgd));

  const std::string tag = env.Get("CLOUD_ML_HP_METRIC_TAG").value_or("");
  TP_ASSIGN_OR_RETURN(
      std::unique_ptr<train::HypertuneCallback> hypertune,
      train::HypertuneCallback::Create(train::HypertuneReporter::FromEnvironment(env),
                                       "val_accuracy", tag.empty() ? "accuracy" : tag));
  train::FitOptions options;
  options.epochs = flags.epochs;
  options.progress = &std::cout;
  options.callbacks.push_back(hypertune.get());
  TP_ASSIGN_OR_RETURN(std::unique_ptr<train::Strategy> strategy,
                      train::MakeStrategy(info, train::StrategyOptions{}));
  absl::StatusOr<train::History> history =
      train::Fit(*strategy, model, *optimizer, *train_source, test_source.get(), options);
  if (!history.ok()) {
    strategy->Shutdown().IgnoreError();  // the Fit error is the one to report
    return history.status();
  }
  TP_RETURN_IF_ERROR(strategy->Shutdown());
  if (!history->epochs.empty()) {
    std::cout << fmt::format("accuracy={:.4f}\n", history->epochs.back().val_accuracy.value_or(0));
  }
  return absl::OkStatus();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app("hptune_digits: the trainer of the hyperparameter tuning sample", "hptune_digits");
  Flags flags;
  AddFlags(app, flags);
  if (std::optional<int> done = trainpkg::samples::ParseCommandLine(app, argc, argv)) return *done;
  absl::Status status = Run(flags, trainpkg::base::ProcessEnvironment());
  if (!status.ok()) {
    std::cerr << "hptune_digits: " << status.message() << "\n";
    return 1;
  }
  return 0;
}
