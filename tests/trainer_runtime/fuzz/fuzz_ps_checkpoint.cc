// Fuzz target: any bytes as a saved model / parameter-server checkpoint
// (tensor_bundle.h), decoded, restored into a small model and read as the
// checkpoint of that model's shard plan (two parameter servers, variables
// split in two). Must never crash, hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "base/check.h"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/ps/partitioner.h"
#include "trainer_runtime/ps/ps_checkpoint.h"
#include "trainer_runtime/ps/shard_plan.h"
#include "trainer_runtime/train/model_file.h"
#include "trainer_runtime/train/tensor_bundle.h"

namespace {

trainpkg::nn::Sequential SmallModel() {
  using namespace trainpkg::nn;
  Sequential model;
  TP_CHECK(model.Add(Dense::Create(4, 3)).ok(), "dense");
  TP_CHECK(model.Add(std::make_unique<ReLU>()).ok(), "relu");
  TP_CHECK(model.Add(Dense::Create(3, 2)).ok(), "dense_1");
  model.InitializeParameters(1);
  return model;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<train::TensorBundle> bundle = train::DecodeTensorBundle(bytes, "fuzz.tpckpt");
  if (!bundle.ok()) return 0;
  nn::Sequential model = SmallModel();
  (void)train::RestoreModel(*bundle, model, "fuzz.tpckpt");
  absl::StatusOr<std::unique_ptr<ps::Partitioner>> partitioner = ps::FixedShardsPartitioner(2);
  TP_CHECK(partitioner.ok(), "partitioner");
  absl::StatusOr<ps::ShardPlan> plan =
      ps::ShardPlan::Create(ps::ShardPlan::VariablesOf(model.parameters()), partitioner->get(), 2);
  TP_CHECK(plan.ok(), "plan: {}", plan.status().ToString());
  (void)ps::ReadPsCheckpoint(*bundle, *plan, "fuzz.tpckpt");
  return 0;
}
