#include "trainer_runtime/train/model_file.h"

#include <algorithm>
#include <map>
#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace trainpkg::train {

TensorBundle ModelBundle(nn::Sequential& model) {
  TensorBundle bundle;
  bundle.kind = "model";
  for (size_t i = 0; i < model.num_layers(); ++i) {
    nn::Layer& layer = model.layer(i);
    LayerRecord record{layer.name(), std::string(layer.kind()), {}};
    for (const nn::Parameter* p : layer.parameters()) record.parameters.push_back(p->name);
    bundle.layers.push_back(std::move(record));
  }
  for (const nn::Parameter* p : model.parameters()) {
    std::vector<float> values(static_cast<size_t>(p->value.num_elements()));
    p->value.CopyToHost(values);
    bundle.tensors.push_back({p->name, p->value.shape(), std::move(values)});
  }
  return bundle;
}

absl::Status RestoreModel(const TensorBundle& bundle, nn::Sequential& model,
                          std::string_view where) {
  const TensorBundle expected = ModelBundle(model);
  if (bundle.layers.size() != expected.layers.size()) {
    return absl::FailedPreconditionError(fmt::format("{}: the file has {} layers, the model {}",
                                                     where, bundle.layers.size(),
                                                     expected.layers.size()));
  }
  for (size_t i = 0; i < bundle.layers.size(); ++i) {
    const LayerRecord& got = bundle.layers[i];
    const LayerRecord& want = expected.layers[i];
    if (got.name != want.name || got.kind != want.kind || got.parameters != want.parameters) {
      return absl::FailedPreconditionError(fmt::format(
          "{}: layer {} is '{}' ({}; parameters [{}]) in the file but '{}' ({}; parameters [{}]) "
          "in the model",
          where, i, got.name, got.kind, fmt::join(got.parameters, ", "), want.name, want.kind,
          fmt::join(want.parameters, ", ")));
    }
  }
  std::map<std::string, const NamedTensor*> by_name;
  for (const NamedTensor& t : bundle.tensors) by_name[t.name] = &t;
  for (const nn::Parameter* p : model.parameters()) {
    auto it = by_name.find(p->name);
    if (it == by_name.end()) {
      return absl::FailedPreconditionError(
          fmt::format("{}: no tensor for parameter {}", where, p->name));
    }
    if (it->second->shape != p->value.shape()) {
      return absl::FailedPreconditionError(
          fmt::format("{}: {} has shape {} in the file but {} in the model", where, p->name,
                      nn::ShapeToString(it->second->shape), nn::ShapeToString(p->value.shape())));
    }
  }
  // Every check has passed before the first value is copied: a refused file
  // leaves the model as it was, which BackupAndRestore relies on.
  for (nn::Parameter* p : model.parameters()) {
    const std::vector<float>& values = by_name[p->name]->values;
    p->value.CopyFromHost(values);
  }
  return absl::OkStatus();
}

absl::Status SaveModel(nn::Sequential& model, const std::filesystem::path& file) {
  return WriteTensorBundle(file, ModelBundle(model));
}

absl::Status LoadModel(const std::filesystem::path& file, nn::Sequential& model) {
  TP_ASSIGN_OR_RETURN(TensorBundle bundle, ReadTensorBundle(file));
  if (bundle.kind != "model") {
    return absl::FailedPreconditionError(
        fmt::format("{}: a {} file, not a model", file.string(), bundle.kind));
  }
  return RestoreModel(bundle, model, file.string());
}

absl::Status SaveModelToDir(nn::Sequential& model, std::string_view model_dir,
                            const runtime::ClusterInfo& info, runtime::ModelWriteOptions options) {
  TP_ASSIGN_OR_RETURN(runtime::ModelWriteDir dir,
                      runtime::ModelWriteDir::Create(model_dir, info, options));
  // Every replica saves, as Keras's multi-worker saving asks; only the
  // chief's copy lands in model_dir, a worker's goes to its temp directory,
  // which Finish removes.
  TP_RETURN_IF_ERROR(SaveModel(model, dir.path() / kModelFileName));
  return dir.Finish();
}

}  // namespace trainpkg::train
