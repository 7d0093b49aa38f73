// A parameter server task: hosts the ParameterServer gRPC service
// (proto/ps.proto) over a ParameterStore until told to shut down.
//
//   auto server = ParameterServer::Start(info.ps_addresses[info.task_index], info.job_secret);
//   (*server)->WaitForShutdown();   // returns once the chief calls Shutdown
//
// Pulls and pushes are streams of chunks of at most the requested payload
// size, so a large variable never travels as one message. Thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_PARAMETER_SERVER_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_PARAMETER_SERVER_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "trainer_runtime/ps/parameter_store.h"

namespace trainpkg::ps {

class ParameterServer {
 public:
  // Listens on `address` ("host:port"; port 0 picks a free one), answering
  // only calls that carry `job_secret` (ClusterInfo::job_secret; UNAUTHENTICATED
  // otherwise). FailedPrecondition for an address beyond loopback without a
  // secret; Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<ParameterServer>> Start(std::string_view address,
                                                                std::string job_secret = {});
  // Stops serving at once.
  virtual ~ParameterServer() = default;

  virtual int port() const = 0;
  virtual std::string address() const = 0;
  // The variables this task holds; valid for the server's lifetime.
  virtual ParameterStore& store() = 0;
  // Blocks until a Shutdown call arrives, then stops serving.
  virtual void WaitForShutdown() = 0;
};

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_PARAMETER_SERVER_H_
