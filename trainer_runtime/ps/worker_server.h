// A worker task: hosts the Worker gRPC service (proto/ps.proto), running
// the step function for each RunStep the chief sends, until told to shut
// down.
//
//   auto server = WorkerServer::Start(address, [&](int64_t step) { return worker.Step(step); });
//   (*server)->WaitForShutdown();
//
// Steps run one at a time (calls are serialized), so the step function need
// not be thread-safe. A step's error goes back to the chief with its code.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_WORKER_SERVER_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_WORKER_SERVER_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "trainer_runtime/ps/step_result.h"

namespace trainpkg::ps {

using StepFunction = std::function<absl::StatusOr<StepResult>(int64_t step)>;

class WorkerServer {
 public:
  // Listens on `address` ("host:port"; port 0 picks one), answering only
  // calls that carry `job_secret` (ClusterInfo::job_secret; UNAUTHENTICATED
  // otherwise). FailedPrecondition for an address beyond loopback without a
  // secret; Unavailable when it cannot be bound.
  static absl::StatusOr<std::unique_ptr<WorkerServer>> Start(std::string_view address,
                                                             StepFunction step,
                                                             std::string job_secret = {});
  // Stops serving at once.
  virtual ~WorkerServer() = default;
  virtual int port() const = 0;
  virtual std::string address() const = 0;
  // Blocks until a Shutdown call arrives, then stops serving.
  virtual void WaitForShutdown() = 0;
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_WORKER_SERVER_H_
