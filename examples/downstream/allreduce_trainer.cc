// allreduce_trainer: one replica of a data-parallel job. Joins the job's
// coordination (rank 0 hosts it), connects to every other rank over Gloo,
// allreduces rank + 1 (so 2 ranks give 3) and prints the sum; the chief
// saves it as model.txt in $AIP_MODEL_DIR. Exit status 1 on any error.
#include <trainpkg/base/environment.h>
#include <trainpkg/trainer_runtime/cluster_info.h>
#include <trainpkg/trainer_runtime/collectives/gloo_communicator.h>
#include <trainpkg/trainer_runtime/coordination/coordinator.h>

#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <span>
#include <string>

namespace collectives = ::trainpkg::collectives;
namespace coordination = ::trainpkg::coordination;
namespace runtime = ::trainpkg::runtime;

namespace {

int Fail(const absl::Status& status) {
  std::cerr << "allreduce_trainer: error: " << status << "\n";
  return 1;
}

}  // namespace

int main() {
  const trainpkg::base::Environment& env = trainpkg::base::ProcessEnvironment();
  absl::StatusOr<runtime::ClusterInfo> info = runtime::ResolveClusterInfo(env);
  if (!info.ok()) return Fail(info.status());
  absl::StatusOr<std::unique_ptr<coordination::Coordinator>> coordinator =
      coordination::Coordinator::Start(*info, {});
  if (!coordinator.ok()) return Fail(coordinator.status());
  absl::StatusOr<std::unique_ptr<collectives::Communicator>> communicator =
      collectives::CreateGlooCommunicator((*coordinator)->client(),
                                          collectives::GlooOptionsFor(*info));
  if (!communicator.ok()) return Fail(communicator.status());

  float value[1] = {static_cast<float>(info->rank + 1)};
  absl::Status reduced =
      (*communicator)->AllReduce(std::span<float>(value), collectives::ReduceOp::kSum);
  if (!reduced.ok()) return Fail(reduced);
  std::cout << "allreduce_trainer: rank " << info->rank << " of " << info->world_size
            << ": sum of rank + 1 = " << value[0] << "\n";

  if (info->is_chief) {
    std::optional<std::string> model_dir = env.Get("AIP_MODEL_DIR");
    if (!model_dir) return Fail(absl::FailedPreconditionError("AIP_MODEL_DIR is not set"));
    std::filesystem::create_directories(*model_dir);
    const std::filesystem::path model_file = std::filesystem::path(*model_dir) / "model.txt";
    std::ofstream model(model_file);
    model << "allreduce_sum=" << value[0] << "\n";
    if (!model.flush()) return Fail(absl::DataLossError("writing " + model_file.string()));
  }
  communicator->reset();
  absl::Status finished = (*coordinator)->Shutdown();
  if (!finished.ok()) return Fail(finished);
  return 0;
}
