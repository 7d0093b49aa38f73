#include "trainer_runtime/ps/parameter_server.h"

#include <chrono>
#include <cstring>
#include <map>
#include <utility>
#include <vector>

#include "absl/synchronization/notification.h"
#include "base/grpc_status.h"
#include "fmt/format.h"
#include "grpcpp/grpcpp.h"
#include "trainer_runtime/ps/internal/chunks.h"
#include "trainer_runtime/ps/internal/element_range.h"
#include "trainer_runtime/ps/internal/listen.h"
#include "trainer_runtime/ps/internal/optimizer_proto.h"
#include "trainer_runtime/ps/proto/ps.grpc.pb.h"

namespace trainpkg::ps {
namespace {

using base::ToGrpcStatus;

class Service final : public proto::ParameterServer::Service {
 public:
  explicit Service(rpc_auth::JobAuth auth) : auth_(std::move(auth)) {}
  const rpc_auth::JobAuth& auth() const { return auth_; }
  ParameterStore& store() { return store_; }
  absl::Notification& shutdown() { return shutdown_; }

  grpc::Status Configure(grpc::ServerContext* context, const proto::ConfigureRequest* request,
                         proto::ConfigureResponse*) override {
    if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
    std::vector<ShardDef> shards;
    for (const proto::ShardDef& s : request->shards())
      shards.push_back({s.id(), s.name(), s.size()});
    return ToGrpcStatus(store_.Configure(std::move(shards), internal::OptimizerConfigFromProto(request->optimizer())));
  }

  grpc::Status Assign(grpc::ServerContext* context, grpc::ServerReader<proto::TensorChunk>* reader,
                      proto::AssignResponse*) override {
    if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
    proto::TensorChunk chunk;
    while (reader->Read(&chunk)) {
      bool ok = false;
      std::vector<float> values = internal::ChunkValues(chunk, &ok);
      if (!ok) return BadChunk(chunk);
      absl::Status s =
          store_.Assign(chunk.shard(), chunk.slot(), chunk.offset(), values, chunk.iterations());
      if (!s.ok()) return ToGrpcStatus(s);
    }
    return grpc::Status::OK;
  }

  grpc::Status Pull(grpc::ServerContext* context, const proto::PullRequest* request,
                    grpc::ServerWriter<proto::TensorChunk>* writer) override {
    if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
    absl::StatusOr<std::vector<ShardSnapshot>> snapshot =
        // The snapshot is copied before streaming: no shard stays locked against
        // pushes while a slow puller reads, and each shard's values and slots come
        // from the same step.
        store_.Snapshot(request->with_optimizer_state());
    if (!snapshot.ok()) return ToGrpcStatus(snapshot.status());
    const int64_t chunk_bytes =
        request->chunk_bytes() > 0 ? request->chunk_bytes() : internal::kDefaultChunkBytes;
    auto write = [writer](const proto::TensorChunk& c) { return writer->Write(c); };
    for (const ShardSnapshot& shard : *snapshot) {
      if (!internal::ForEachChunk(shard.id, 0, shard.iterations, shard.values, chunk_bytes,
                                  write)) {
        return grpc::Status(grpc::StatusCode::CANCELLED, "the puller went away");
      }
      for (size_t k = 0; k < shard.slots.size(); ++k) {
        if (!internal::ForEachChunk(shard.id, static_cast<int>(k) + 1, shard.iterations,
                                    shard.slots[k], chunk_bytes, write)) {
          return grpc::Status(grpc::StatusCode::CANCELLED, "the puller went away");
        }
      }
    }
    return grpc::Status::OK;
  }

  // Gathers each shard's gradient from its chunks and applies the optimizer
  // once it is complete. Chunks of one shard arrive in order, shard after
  // shard; a chunk at another offset than the next expected one, or
  // reaching past the shard, ends the push with INVALID_ARGUMENT.
  grpc::Status Push(grpc::ServerContext* context, grpc::ServerReader<proto::TensorChunk>* reader,
                    proto::PushResponse*) override {
    if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
    std::map<int, std::pair<std::vector<float>, int64_t>> pending;  // shard -> (grad, filled)
    proto::TensorChunk chunk;
    while (reader->Read(&chunk)) {
      absl::StatusOr<int64_t> size = store_.ShardSize(chunk.shard());
      if (!size.ok()) return ToGrpcStatus(size.status());
      const std::string& bytes = chunk.values();
      const int64_t count = static_cast<int64_t>(bytes.size() / 4);
      auto& [grad, filled] = pending[chunk.shard()];
      if (bytes.size() % 4 != 0 || chunk.slot() != 0 || chunk.offset() != filled ||
          !internal::ElementRangeFits(chunk.offset(), count, *size)) {
        return BadChunk(chunk, *size, filled);
      }
      if (grad.empty()) grad.resize(static_cast<size_t>(*size));
      std::memcpy(grad.data() + chunk.offset(), bytes.data(), bytes.size());
      filled += count;
      // Applied only once whole: the optimizer step must see the worker's entire
      // gradient for the shard, never part of it.
      if (filled == *size) {
        absl::Status applied = store_.ApplyGradient(chunk.shard(), grad);
        if (!applied.ok()) return ToGrpcStatus(applied);
        pending.erase(chunk.shard());
      }
    }
    if (!pending.empty()) {
      return grpc::Status(grpc::StatusCode::INVALID_ARGUMENT,
                          fmt::format("push ended with the gradient of shard {} incomplete",
                                      pending.begin()->first));
    }
    return grpc::Status::OK;
  }

  grpc::Status Shutdown(grpc::ServerContext* context, const proto::ShutdownRequest*,
                        proto::ShutdownResponse*) override {
    if (grpc::Status auth = auth_.Check(*context); !auth.ok()) return auth;
    if (!shutdown_.HasBeenNotified()) shutdown_.Notify();
    return grpc::Status::OK;
  }

 private:
  static grpc::Status BadChunk(const proto::TensorChunk& chunk) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        fmt::format("bad chunk for shard {} slot {}: offset {}, {} bytes (not a multiple of 4)",
                    chunk.shard(), chunk.slot(), chunk.offset(), chunk.values().size()));
  }
  static grpc::Status BadChunk(const proto::TensorChunk& chunk, int64_t size, int64_t expected) {
    return grpc::Status(
        grpc::StatusCode::INVALID_ARGUMENT,
        fmt::format("bad gradient chunk for shard {} slot {}: offset {}, {} bytes; expected slot "
                    "0, offset {}, a multiple of 4 bytes, within the shard's {} values",
                    chunk.shard(), chunk.slot(), chunk.offset(), chunk.values().size(), expected,
                    size));
  }

  const rpc_auth::JobAuth auth_;
  ParameterStore store_;
  absl::Notification shutdown_;
};

class ParameterServerImpl final : public ParameterServer {
 public:
  ParameterServerImpl(std::unique_ptr<Service> service, std::unique_ptr<grpc::Server> server,
                      std::string address, int port)
      : service_(std::move(service)),
        server_(std::move(server)),
        address_(std::move(address)),
        port_(port) {}
  ~ParameterServerImpl() override { server_->Shutdown(); }

  int port() const override { return port_; }
  std::string address() const override { return address_; }
  ParameterStore& store() override { return service_->store(); }
  void WaitForShutdown() override {
    service_->shutdown().WaitForNotification();
    // Let the Shutdown call itself complete before the server goes.
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(1));
  }

 private:
  std::unique_ptr<Service> service_;
  std::unique_ptr<grpc::Server> server_;
  std::string address_;
  int port_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<ParameterServer>> ParameterServer::Start(std::string_view address,
                                                                        std::string job_secret) {
  auto service = std::make_unique<Service>(rpc_auth::JobAuth(std::move(job_secret)));
  internal::Listening listening;
  auto server = internal::Listen(address, service.get(), &listening, service->auth());
  if (!server.ok()) return server.status();
  return std::unique_ptr<ParameterServer>(new ParameterServerImpl(
      std::move(service), *std::move(server), listening.address, listening.port));
}

}  // namespace trainpkg::ps
