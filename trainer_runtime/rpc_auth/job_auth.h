// Authentication of the RPCs between one job's replicas (coordination,
// parameter servers, workers) with the job's shared secret
// (TRAINPKG_JOB_SECRET, jobspec/job_secret.h, ClusterInfo::job_secret).
//
//   rpc_auth::JobAuth auth(info.job_secret);
//   TP_RETURN_IF_ERROR(auth.CheckListenAddress(address));      // server, before binding
//   grpc::Status Service::Call(grpc::ServerContext* context, ...) {
//     if (grpc::Status s = auth.Check(*context); !s.ok()) return s;   // first, in every method
//   std::shared_ptr<grpc::Channel> channel = auth.Connect(address);  // client
//
// Clients send the secret as gRPC metadata (kSecretMetadataKey) on every
// call; servers compare it in constant time. The channel itself is
// plaintext, as before: the secret keeps out whoever can reach a port but
// does not know it (another local user, a web page, a container of another
// job); it does not protect against someone who can read the job's
// traffic or environment.
//
// Without a secret (a trainer started by hand), calls are not
// authenticated and servers may listen on loopback addresses only.
// Thread-safe; cheap to copy.
#ifndef TRAINPKG_TRAINER_RUNTIME_RPC_AUTH_JOB_AUTH_H_
#define TRAINPKG_TRAINER_RUNTIME_RPC_AUTH_JOB_AUTH_H_

#include <memory>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "grpcpp/grpcpp.h"

namespace trainpkg::rpc_auth {

// The metadata key that carries the secret.
inline constexpr char kSecretMetadataKey[] = "trainpkg-job-secret";

class JobAuth {
 public:
  // No secret: nothing is checked or sent; servers listen on loopback only.
  JobAuth() = default;
  // `secret` as ClusterInfo::job_secret holds it ("" = none).
  explicit JobAuth(std::string secret) : secret_(std::move(secret)) {}

  bool has_secret() const { return !secret_.empty(); }

  // OK when the call carries the job's secret, or when there is none;
  // UNAUTHENTICATED otherwise (the message says whether the secret was
  // missing or wrong, never what it is).
  grpc::Status Check(const grpc::ServerContext& context) const;

  // OK when a server may listen on `address` ("host:port"): any address
  // with a secret; without one, only 127.0.0.0/8, ::1 and "localhost".
  // FailedPrecondition naming TRAINPKG_JOB_SECRET otherwise.
  absl::Status CheckListenAddress(std::string_view address) const;

  // A channel to `address` ("host:port") that sends the secret (if any)
  // with every call.
  std::shared_ptr<grpc::Channel> Connect(const std::string& address,
                                         const grpc::ChannelArguments& args = {}) const;

 private:
  std::string secret_;
};

// Whether `host` (of "host:port", brackets allowed around IPv6) names a
// loopback address.
bool IsLoopbackHost(std::string_view host);

}  // namespace trainpkg::rpc_auth

#endif  // TRAINPKG_TRAINER_RUNTIME_RPC_AUTH_JOB_AUTH_H_
