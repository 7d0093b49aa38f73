// Where each replica of a multi-worker job writes the model (TensorFlow's
// rule, keras distributed_file_utils.py). Every member of the collective
// saves, because a save can need all of them; only the chief's copy is kept:
//   chief (rank 0)         -> <model_dir>
//   any other worker i     -> <model_dir>/workertemp_<i>, removed by Finish()
// where i is the task index (the worker's position in TF_CONFIG's "worker"
// list; the rank under torchrun and Slurm). With no chief in the cluster,
// worker 0 is the chief and writes to <model_dir>. ps and evaluator tasks
// are outside the collective and do not save the model.
//
// The same rule fits checkpoint and TensorBoard directories.
//
//   auto dir = ModelWriteDir::Create(model_dir, info,
//                                    ModelWriteOptionsFromEnvironment(env));
//   if (!dir.ok()) ...
//   ... write files under dir->path() ...
//   TP_RETURN_IF_ERROR(dir->Finish());
#ifndef TRAINPKG_TRAINER_RUNTIME_OUTPUT_PATHS_H_
#define TRAINPKG_TRAINER_RUNTIME_OUTPUT_PATHS_H_

#include <filesystem>
#include <string_view>
#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/environment.h"
#include "trainer_runtime/cluster_info.h"

namespace trainpkg::runtime {

// The local path of an output location: a plain path (relative paths stay
// relative), file:///abs/path or file://localhost/abs/path (not
// percent-decoded), or gs://bucket/path -> /gcs/bucket/path, the Cloud
// Storage FUSE mount Vertex provides on every node. A trailing '/' is dropped.
// InvalidArgument for "", another scheme, a file:// URI with a remote host or
// a relative path, or gs:// without a bucket.
absl::StatusOr<std::filesystem::path> LocalPathForUri(std::string_view uri);

struct ModelWriteOptions {
  // Keep <model_dir>/workertemp_<i> after Finish(), e.g. to inspect what a
  // worker wrote.
  bool keep_worker_temp = false;
};

// keep_worker_temp is true when TRAINPKG_KEEP_WORKER_TEMP is "1".
ModelWriteOptions ModelWriteOptionsFromEnvironment(const base::Environment& env);

// The directory one replica writes one save to. Not thread-safe.
class ModelWriteDir {
 public:
  // Creates (with parents) the directory this replica writes to; an existing
  // one is reused as is. InvalidArgument for a model_dir LocalPathForUri
  // rejects; FailedPrecondition for a ps or evaluator task; the filesystem
  // error when the directory cannot be made.
  static absl::StatusOr<ModelWriteDir> Create(std::string_view model_dir, const ClusterInfo& info,
                                              ModelWriteOptions options = {});

  // Where to write: the model directory for the chief, the worker's temp
  // directory otherwise.
  const std::filesystem::path& path() const { return path_; }
  // True for a worker's temp directory.
  bool is_worker_temp() const { return worker_temp_; }

  // Ends the save once every file is written: removes the worker's temp
  // directory unless it is kept; does nothing for the chief. Calling it again
  // is harmless. The filesystem error when the removal fails.
  absl::Status Finish();

 private:
  ModelWriteDir(std::filesystem::path path, bool worker_temp, bool keep)
      : path_(std::move(path)), worker_temp_(worker_temp), keep_(keep) {}

  std::filesystem::path path_;
  bool worker_temp_;
  bool keep_;
};

}  // namespace trainpkg::runtime

#endif  // TRAINPKG_TRAINER_RUNTIME_OUTPUT_PATHS_H_
