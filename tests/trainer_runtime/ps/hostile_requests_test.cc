// Hostile messages to a parameter server through its real gRPC service: a
// chunk whose offset + count overflows int64 or runs past its shard (issue
// #16 finding 14), a Configure sized beyond the machine (finding 16). Each
// ends with INVALID_ARGUMENT / RESOURCE_EXHAUSTED, the store unchanged, the
// server still answering, and the process's memory bounded. And the other
// way: a worker pulling such chunks from a hostile ps refuses them.
#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/ps/parameter_server.h"
#include "trainer_runtime/ps/proto/ps.grpc.pb.h"
#include "trainer_runtime/ps/shard_plan.h"
#include "trainer_runtime/ps/variable_client.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::ps {
namespace {

constexpr int64_t kShardSize = 16;
constexpr int64_t kMaxPeakRssKib = 256 << 10;
// A child may map no more than this, so an allocation sized by a hostile
// message fails there instead of exhausting the machine.
constexpr int64_t kChildAddressSpace = int64_t{8} << 30;

struct Ps {
  std::unique_ptr<ParameterServer> server;
  std::unique_ptr<proto::ParameterServer::Stub> stub;
};

// A ps holding one shard of 16 values 0, 1, ..., 15 (sgd).
Ps StartConfiguredPs() {
  Ps ps;
  ps.server = *ParameterServer::Start("127.0.0.1:0");
  ps.stub = proto::ParameterServer::NewStub(
      grpc::CreateChannel(ps.server->address(), grpc::InsecureChannelCredentials()));
  OptimizerConfig sgd;
  sgd.kind = "sgd";
  sgd.sgd.learning_rate = 0.5f;
  EXPECT_THAT(ps.server->store().Configure({{0, "w", kShardSize}}, sgd), IsOk());
  std::vector<float> values(kShardSize);
  for (int64_t i = 0; i < kShardSize; ++i) values[static_cast<size_t>(i)] = static_cast<float>(i);
  EXPECT_THAT(ps.server->store().Assign(0, 0, 0, values, 0), IsOk());
  return ps;
}

std::vector<float> Values(ParameterServer& server) {
  auto snapshot = server.store().Snapshot(/*with_optimizer_state=*/false);
  return snapshot.ok() ? snapshot->at(0).values : std::vector<float>();
}

proto::TensorChunk Chunk(int64_t offset, int floats) {
  proto::TensorChunk chunk;
  chunk.set_shard(0);
  chunk.set_slot(0);
  chunk.set_offset(offset);
  chunk.set_values(std::string(static_cast<size_t>(floats) * 4, '\x7f'));
  return chunk;
}

// Offsets whose sum with a small count wraps below the shard's size.
const int64_t kHostileOffsets[] = {std::numeric_limits<int64_t>::max(),
                                   std::numeric_limits<int64_t>::max() - 1,
                                   int64_t{1} << 62,
                                   kShardSize,
                                   -1,
                                   std::numeric_limits<int64_t>::min()};

grpc::Status Push(Ps& ps, const proto::TensorChunk& chunk) {
  grpc::ClientContext context;
  proto::PushResponse response;
  auto writer = ps.stub->Push(&context, &response);
  writer->Write(chunk);
  writer->WritesDone();
  return writer->Finish();
}

grpc::Status Assign(Ps& ps, const proto::TensorChunk& chunk) {
  grpc::ClientContext context;
  proto::AssignResponse response;
  auto writer = ps.stub->Assign(&context, &response);
  writer->Write(chunk);
  writer->WritesDone();
  return writer->Finish();
}

// The server still serves: a Pull returns the shard.
bool StillServes(Ps& ps) {
  grpc::ClientContext context;
  proto::PullRequest request;
  auto reader = ps.stub->Pull(&context, request);
  proto::TensorChunk chunk;
  int64_t floats = 0;
  while (reader->Read(&chunk)) floats += static_cast<int64_t>(chunk.values().size() / 4);
  return reader->Finish().ok() && floats == kShardSize;
}

// The measured tests come first: each child forks before this process has
// started gRPC (ctest runs one test per process anyway).
TEST(PsHostileRequestsTest, ConfigureBeyondTheMachineIsRefusedBeforeAllocating) {
  const testing::ChildRun run = testing::RunInChildMeasured(
      [] {
        auto server = ParameterServer::Start("127.0.0.1:0");
        if (!server.ok()) return 10;
        auto stub = proto::ParameterServer::NewStub(
            grpc::CreateChannel((*server)->address(), grpc::InsecureChannelCredentials()));
        for (int64_t size : {int64_t{1} << 40, std::numeric_limits<int64_t>::max()}) {
          proto::ConfigureRequest request;
          request.mutable_optimizer()->set_kind("adam");
          proto::ShardDef* shard = request.add_shards();
          shard->set_id(0);
          shard->set_name("huge");
          shard->set_size(size);
          grpc::ClientContext context;
          proto::ConfigureResponse response;
          const grpc::Status status = stub->Configure(&context, request, &response);
          if (status.error_code() != grpc::StatusCode::RESOURCE_EXHAUSTED) return 11;
          if (status.error_message().find("memory") == std::string::npos) return 12;
        }
        // Many shards whose sizes only overflow when summed.
        proto::ConfigureRequest request;
        request.mutable_optimizer()->set_kind("sgd");
        for (int i = 0; i < 4; ++i) {
          proto::ShardDef* shard = request.add_shards();
          shard->set_id(i);
          shard->set_name("part");
          shard->set_size(std::numeric_limits<int64_t>::max() / 3);
        }
        grpc::ClientContext context;
        proto::ConfigureResponse response;
        if (stub->Configure(&context, request, &response).error_code() !=
            grpc::StatusCode::RESOURCE_EXHAUSTED) {
          return 13;
        }
        // Still unconfigured and serving: a real Configure works.
        request.Clear();
        request.mutable_optimizer()->set_kind("sgd");
        proto::ShardDef* shard = request.add_shards();
        shard->set_id(0);
        shard->set_name("w");
        shard->set_size(kShardSize);
        grpc::ClientContext ok_context;
        return stub->Configure(&ok_context, request, &response).ok() ? 0 : 14;
      },
      kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
}

TEST(PsHostileRequestsTest, OverflowingPushEndsWithBoundedMemory) {
  const testing::ChildRun run = testing::RunInChildMeasured(
      [] {
        Ps ps = StartConfiguredPs();
        for (int64_t offset : kHostileOffsets) {
          if (Push(ps, Chunk(offset, 1024)).error_code() != grpc::StatusCode::INVALID_ARGUMENT) {
            return 20;
          }
        }
        return StillServes(ps) ? 0 : 21;
      },
      kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
}

// Chunks in order whose count runs past the shard: without the range check
// the server copies them past the end of its gradient buffer (a heap
// overflow from any peer). In a child, so corrupting the heap fails the test
// instead of crashing it.
TEST(PsHostileRequestsTest, PushRunningPastTheShardIsRejectedAndStoreUnchanged) {
  const testing::ChildRun run = testing::RunInChildMeasured(
      [] {
        Ps ps = StartConfiguredPs();
        const std::vector<float> before = Values(*ps.server);
        const auto rejected = [](const grpc::Status& status) {
          return status.error_code() == grpc::StatusCode::INVALID_ARGUMENT &&
                 status.error_message().find("within the shard's 16 values") != std::string::npos;
        };
        // One chunk a value longer than the shard.
        if (!rejected(Push(ps, Chunk(0, kShardSize + 1)))) return 30;
        // Half the shard, then 1 MiB at the right offset.
        grpc::ClientContext context;
        proto::PushResponse response;
        auto writer = ps.stub->Push(&context, &response);
        writer->Write(Chunk(0, kShardSize / 2));
        writer->Write(Chunk(kShardSize / 2, 256 << 10));
        writer->WritesDone();
        if (!rejected(writer->Finish())) return 31;
        if (Values(*ps.server) != before) return 32;
        return StillServes(ps) ? 0 : 33;
      },
      kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
}

// A parameter server (or whoever holds its address and the job secret) that
// answers a worker's Pull with chunks outside the shard: each in turn.
class HostilePs final : public proto::ParameterServer::Service {
 public:
  explicit HostilePs(proto::TensorChunk chunk) : chunk_(std::move(chunk)) {}
  grpc::Status Pull(grpc::ServerContext*, const proto::PullRequest*,
                    grpc::ServerWriter<proto::TensorChunk>* writer) override {
    writer->Write(chunk_);
    return grpc::Status::OK;
  }

 private:
  proto::TensorChunk chunk_;
};

// The worker's side of finding 14: values and optimizer state pulled from a
// ps are copied into the model at the chunk's offset, so a chunk outside
// the shard must end the pull with DataLoss, the model unchanged.
TEST(PsHostileRequestsTest, PulledChunksOutsideTheShardAreRefusedByTheWorker) {
  const testing::ChildRun run = testing::RunInChildMeasured(
      [] {
        for (const int64_t offset : kHostileOffsets) {
          for (const int floats : {2, static_cast<int>(kShardSize) + 1}) {
            HostilePs service(Chunk(offset, floats));
            int port = 0;
            grpc::ServerBuilder builder;
            builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
            builder.RegisterService(&service);
            std::unique_ptr<grpc::Server> server = builder.BuildAndStart();
            if (server == nullptr) return 40;
            auto plan = ShardPlan::Create({{"w", {kShardSize}}}, nullptr, 1);
            if (!plan.ok()) return 41;
            auto client = VariableClient::Create(*plan, {"127.0.0.1:" + std::to_string(port)});
            if (!client.ok()) return 42;
            nn::Parameter w("w", {kShardSize});
            const std::vector<float> before(w.value.values().begin(), w.value.values().end());
            nn::Parameter* list[] = {&w};
            const absl::Status pulled = (*client)->Pull(list);
            if (pulled.code() != absl::StatusCode::kDataLoss) return 43;
            if (!std::equal(before.begin(), before.end(), w.value.values().begin())) return 44;
            if ((*client)->PullState().status().code() != absl::StatusCode::kDataLoss) return 45;
            server->Shutdown();
          }
        }
        return 0;
      },
      kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
}

TEST(PsHostileRequestsTest, PushWithOverflowingOffsetIsRejectedAndStoreUnchanged) {
  for (int64_t offset : kHostileOffsets) {
    Ps ps = StartConfiguredPs();
    const std::vector<float> before = Values(*ps.server);
    const grpc::Status status = Push(ps, Chunk(offset, 2));
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << offset;
    EXPECT_NE(status.error_message().find("offset"), std::string::npos) << status.error_message();
    EXPECT_EQ(Values(*ps.server), before) << offset;
    EXPECT_TRUE(StillServes(ps)) << offset;
  }
}

TEST(PsHostileRequestsTest, AssignWithOverflowingOffsetIsRejectedAndStoreUnchanged) {
  for (int64_t offset : kHostileOffsets) {
    for (int slot : {0, 1}) {
      Ps ps = StartConfiguredPs();
      const std::vector<float> before = Values(*ps.server);
      proto::TensorChunk chunk = Chunk(offset, 2);
      chunk.set_slot(slot);
      const grpc::Status status = Assign(ps, chunk);
      EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << offset;
      EXPECT_NE(status.error_message().find("offset"), std::string::npos) << status.error_message();
      EXPECT_EQ(Values(*ps.server), before) << offset;
      EXPECT_TRUE(StillServes(ps)) << offset;
    }
  }
}

// Chunks of one gradient out of order (a repeated chunk would otherwise
// count twice towards a complete gradient).
TEST(PsHostileRequestsTest, PushRepeatingAChunkIsRejected) {
  Ps ps = StartConfiguredPs();
  const std::vector<float> before = Values(*ps.server);
  grpc::ClientContext context;
  proto::PushResponse response;
  auto writer = ps.stub->Push(&context, &response);
  writer->Write(Chunk(0, kShardSize / 2));
  writer->Write(Chunk(0, kShardSize / 2));
  writer->WritesDone();
  EXPECT_EQ(writer->Finish().error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(Values(*ps.server), before);
}

}  // namespace
}  // namespace trainpkg::ps
