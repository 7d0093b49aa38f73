// The chief's checkpoints of parameter-server training, and the marker that
// tells the evaluator training is over. Layout of the directory:
//   ckpt-<step, 8 digits>.tpckpt   one per checkpoint (tensor_bundle.h,
//                                  kind "checkpoint", counter "step")
//   training_done                  the final step, written last
// Every file is written atomically (temporary file + rename), so a reader
// (the evaluator, a rerun) never sees a partial one. Thread-compatible.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_CHECKPOINT_DIR_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_CHECKPOINT_DIR_H_

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/train/tensor_bundle.h"

namespace trainpkg::ps {

class CheckpointDir {
 public:
  // `max_to_keep` 0 keeps every checkpoint; otherwise Write deletes the
  // oldest beyond it.
  explicit CheckpointDir(std::filesystem::path dir, int max_to_keep = 0)
      : dir_(std::move(dir)), max_to_keep_(max_to_keep) {}

  std::filesystem::path PathFor(int64_t step) const;

  // Writes the bundle as step `step`'s checkpoint (creating the directory).
  absl::Status Write(int64_t step, const train::TensorBundle& bundle);
  // Steps with a checkpoint, ascending; empty when the directory is absent.
  absl::StatusOr<std::vector<int64_t>> Steps() const;
  // The newest checkpoint's step, or nullopt.
  absl::StatusOr<std::optional<int64_t>> LatestStep() const;

  absl::Status MarkDone(int64_t final_step);
  bool IsDone() const;
  // Removes the marker (a rerun starts training again).
  absl::Status ClearDone();

 private:
  std::filesystem::path dir_;
  int max_to_keep_;
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_CHECKPOINT_DIR_H_
