// Keras's BackupAndRestore callback: a backup of the training state at the
// end of every epoch, restored when the job starts again, deleted when
// training finishes.
//
//   auto backup = BackupAndRestore::Create(dirs.checkpoint_dir, *info);
//   options.callbacks.push_back(backup->get());
//
// What: the model's parameters, the optimizer's state and iteration count,
// the number of the epoch just finished, and the generator state of every
// layer that draws random numbers while training (Dropout; Layer::RngState,
// as counters "rng/<layer>/size" and "rng/<layer>/<i>", the uint64 values
// stored bit for bit as int64), in one file (tensor_bundle.h, kind
// "checkpoint") <backup_dir>/chief/checkpoint.tpckpt. Fit's data order
// depends on the epoch alone (BatchSource), so a resumed run continues
// exactly as the uninterrupted run would have, dropout masks included. The
// generators saved are the chief's; every replica restores them, which
// equals the uninterrupted run when the replicas draw alike (same seeds and
// per-replica batch shapes). A checkpoint without generator states (older
// builds) restores the rest and keeps the layers' seeded generators.
//
// Where (tf_keras worker_training_state.py): every replica saves, through
// ModelWriteDir on <backup_dir>/chief — the chief writes the real file, a
// worker writes <backup_dir>/chief/workertemp_<i>/ and removes it. Writes
// are atomic (temporary file + rename), so a crash mid-save leaves the
// previous backup intact. Every replica restores from the chief's file, so
// the backup directory must be shared (as AIP_CHECKPOINT_DIR's Cloud Storage
// mount is).
//
// Resume: OnTrainBegin restores and sets initial_epoch to the saved epoch +
// 1 (the interrupted epoch is redone from its start). Finish: OnTrainEnd on
// the chief deletes <backup_dir>/chief (and <backup_dir> if it is then
// empty) unless delete_backup is false.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_BACKUP_AND_RESTORE_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_BACKUP_AND_RESTORE_H_

#include <filesystem>
#include <memory>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/output_paths.h"
#include "trainer_runtime/train/callback.h"

namespace trainpkg::train {

struct BackupOptions {
  bool delete_backup = true;
  runtime::ModelWriteOptions write;
};

class BackupAndRestore final : public Callback {
 public:
  // `backup_dir` is a path or URI as LocalPathForUri takes it
  // (InvalidArgument otherwise). Touches no file.
  static absl::StatusOr<std::unique_ptr<BackupAndRestore>> Create(std::string_view backup_dir,
                                                                  const runtime::ClusterInfo& info,
                                                                  BackupOptions options = {});

  // <backup_dir>/chief/checkpoint.tpckpt.
  const std::filesystem::path& checkpoint_file() const { return file_; }

  // Restores from checkpoint_file() when it exists. ReadTensorBundle's
  // errors (DataLoss for a corrupted file, ...); FailedPrecondition when it
  // does not fit the model or optimizer.
  absl::Status OnTrainBegin(TrainContext& context) override;
  // Saves the state after epoch logs.epoch; the filesystem's errors.
  absl::Status OnEpochEnd(TrainContext& context, const EpochLogs& logs) override;
  // Waits for every replica (a collective call), then the chief deletes the
  // backup.
  absl::Status OnTrainEnd(TrainContext& context, const History& history) override;

 private:
  BackupAndRestore(std::filesystem::path root, const runtime::ClusterInfo& info,
                   BackupOptions options)
      : root_(std::move(root)),
        file_(root_ / "chief" / "checkpoint.tpckpt"),
        info_(info),
        options_(options) {}

  std::filesystem::path root_;
  std::filesystem::path file_;
  runtime::ClusterInfo info_;
  BackupOptions options_;
};

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_BACKUP_AND_RESTORE_H_
