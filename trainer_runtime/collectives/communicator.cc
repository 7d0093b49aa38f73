#include "trainer_runtime/collectives/communicator.h"

namespace trainpkg::collectives {
namespace {

// Nothing set up ahead: an AllReduce of the same buffer at every Run.
class AllReduceEachRun final : public PreparedAllReduce {
 public:
  AllReduceEachRun(Communicator& comm, std::span<float> data, ReduceOp op)
      : comm_(comm), data_(data), op_(op) {}
  absl::Status Run() override { return comm_.AllReduce(data_, op_); }

 private:
  Communicator& comm_;
  const std::span<float> data_;
  const ReduceOp op_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<PreparedAllReduce>> Communicator::PrepareAllReduce(
    std::span<float> data, ReduceOp op) {
  return std::make_unique<AllReduceEachRun>(*this, data, op);
}

}  // namespace trainpkg::collectives
