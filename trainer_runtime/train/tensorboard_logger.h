// Keras's TensorBoard callback for scalars: at the end of every epoch the
// chief appends loss, accuracy, learning_rate, step_time (seconds per
// training step) and, with validation data, val_loss and val_accuracy at
// step = epoch, to an event file in the log directory
// (AIP_TENSORBOARD_LOG_DIR on Vertex). Workers write nothing.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_TENSORBOARD_LOGGER_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_TENSORBOARD_LOGGER_H_

#include <filesystem>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/clock.h"
#include "trainer_runtime/train/callback.h"
#include "trainer_runtime/train/event_file_writer.h"

namespace trainpkg::train {

struct TensorBoardOptions {
  // The file name's host part; "" for this machine's hostname.
  std::string hostname;
  // The events' wall time and the file name's time; not owned (must outlive
  // the logger). nullptr: base::RealClock().
  base::Clock* clock = nullptr;
};

class TensorBoardLogger final : public Callback {
 public:
  // `log_dir` as LocalPathForUri takes it (InvalidArgument otherwise).
  // Touches no file.
  static absl::StatusOr<std::unique_ptr<TensorBoardLogger>> Create(std::string_view log_dir,
                                                                   TensorBoardOptions options = {});

  // The event file, once the chief's OnTrainBegin has made it; else empty.
  std::filesystem::path event_file() const;

  absl::Status OnTrainBegin(TrainContext& context) override;
  absl::Status OnEpochEnd(TrainContext& context, const EpochLogs& logs) override;

 private:
  TensorBoardLogger(std::filesystem::path dir, TensorBoardOptions options)
      : dir_(std::move(dir)), options_(std::move(options)) {}

  std::filesystem::path dir_;
  TensorBoardOptions options_;
  std::unique_ptr<EventFileWriter> writer_;
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_TENSORBOARD_LOGGER_H_
