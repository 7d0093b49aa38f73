#include "trainer_runtime/ps/internal/listen.h"

#include "fmt/format.h"

namespace trainpkg::ps::internal {

absl::StatusOr<std::unique_ptr<grpc::Server>> Listen(std::string_view address,
                                                     grpc::Service* service, Listening* listening,
                                                     const rpc_auth::JobAuth& auth) {
  if (absl::Status allowed = auth.CheckListenAddress(address); !allowed.ok()) return allowed;
  grpc::ServerBuilder builder;
  int port = 0;
  builder.AddListeningPort(std::string(address), grpc::InsecureServerCredentials(), &port);
  builder.RegisterService(service);
  std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
  if (server == nullptr || port == 0) {
    return absl::UnavailableError(fmt::format("cannot listen on {}", address));
  }
  // The host as given, with the port the server got: asked for port 0, only
  // the server knows it.
  std::string host(address.substr(0, address.rfind(':')));
  listening->address = fmt::format("{}:{}", host, port);
  listening->port = port;
  return server;
}

std::shared_ptr<grpc::Channel> Connect(const std::string& address, const rpc_auth::JobAuth& auth) {
  grpc::ChannelArguments args;
  // A channel of its own per peer, so a dead peer's channel state never
  // affects another's.
  args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
  return auth.Connect(address, args);
}

}  // namespace trainpkg::ps::internal
