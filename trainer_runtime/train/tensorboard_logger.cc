#include "trainer_runtime/train/tensorboard_logger.h"

#include <unistd.h>

#include <utility>
#include <vector>

#include "base/status_macros.h"
#include "trainer_runtime/output_paths.h"

namespace trainpkg::train {

absl::StatusOr<std::unique_ptr<TensorBoardLogger>> TensorBoardLogger::Create(
    std::string_view log_dir, TensorBoardOptions options) {
  TP_ASSIGN_OR_RETURN(std::filesystem::path dir, runtime::LocalPathForUri(log_dir));
  if (options.hostname.empty()) {
    char host[256] = {};
    if (gethostname(host, sizeof(host) - 1) == 0) options.hostname = host;
    if (options.hostname.empty()) options.hostname = "localhost";
  }
  if (options.clock == nullptr) options.clock = &base::RealClock();
  return std::unique_ptr<TensorBoardLogger>(new TensorBoardLogger(std::move(dir), options));
}

std::filesystem::path TensorBoardLogger::event_file() const {
  return writer_ ? writer_->path() : std::filesystem::path();
}

absl::Status TensorBoardLogger::OnTrainBegin(TrainContext& context) {
  if (!context.strategy.is_chief() || writer_ != nullptr) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(writer_,
                      EventFileWriter::Create(dir_, options_.hostname, options_.clock->Now()));
  return absl::OkStatus();
}

absl::Status TensorBoardLogger::OnEpochEnd(TrainContext& /*context*/, const EpochLogs& logs) {
  if (writer_ == nullptr) return absl::OkStatus();
  std::vector<std::pair<std::string, float>> scalars = {
      {"loss", static_cast<float>(logs.loss)},
      {"accuracy", static_cast<float>(logs.accuracy)},
      {"learning_rate", static_cast<float>(logs.learning_rate)},
      {"step_time", static_cast<float>(logs.step_seconds)}};
  if (logs.val_loss) scalars.emplace_back("val_loss", static_cast<float>(*logs.val_loss));
  if (logs.val_accuracy) {
    scalars.emplace_back("val_accuracy", static_cast<float>(*logs.val_accuracy));
  }
  return writer_->WriteScalars(logs.epoch, options_.clock->Now(), scalars);
}

}  // namespace trainpkg::train
