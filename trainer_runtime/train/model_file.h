// Saving a model's weights (tensor_bundle.h, kind "model") and restoring them
// into a model of the same architecture.
//
//   TP_RETURN_IF_ERROR(SaveModelToDir(model, "gs://b/out/model", info));  // chief + workers
//   ...
//   nn::Sequential same = BuildModel();
//   TP_RETURN_IF_ERROR(LoadModel(dir / kModelFileName, same));
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_MODEL_FILE_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_MODEL_FILE_H_

#include <filesystem>
#include <string_view>

#include "absl/status/status.h"
#include "trainer_runtime/cluster_info.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/output_paths.h"
#include "trainer_runtime/train/tensor_bundle.h"

namespace trainpkg::train {

// The file a model directory holds.
inline constexpr std::string_view kModelFileName = "model.tpmodel";

// The model's layers (name, kind, parameter names) and parameter values.
TensorBundle ModelBundle(nn::Sequential& model);

// Copies the bundle's parameter values into `model`. Tensors the model does
// not have (a checkpoint's optimizer state) are ignored. FailedPrecondition,
// starting with `where` and naming the first difference, when the layers
// (count, names, kinds, parameter names) or a parameter's shape differ;
// nothing is changed then.
absl::Status RestoreModel(const TensorBundle& bundle, nn::Sequential& model,
                          std::string_view where);

// Writes ModelBundle(model) to `file` atomically.
absl::Status SaveModel(nn::Sequential& model, const std::filesystem::path& file);
// ReadTensorBundle's errors, a bundle that is not a model, or RestoreModel's.
absl::Status LoadModel(const std::filesystem::path& file, nn::Sequential& model);

// The multi-worker save (output_paths.h): the chief writes
// <model_dir>/model.tpmodel, a worker writes its workertemp_<i> copy and
// removes it. Every replica of the collective calls it.
absl::Status SaveModelToDir(nn::Sequential& model, std::string_view model_dir,
                            const runtime::ClusterInfo& info,
                            runtime::ModelWriteOptions options = {});

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_MODEL_FILE_H_
