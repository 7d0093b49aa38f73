// The parameter-server and worker services answer only calls carrying the
// job's secret (issue #16 finding 16): every RPC without it or with another
// job's is UNAUTHENTICATED and changes nothing; the job's own clients work;
// without a secret the servers listen on loopback only.
#include <atomic>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/ps/parameter_server.h"
#include "trainer_runtime/ps/proto/ps.grpc.pb.h"
#include "trainer_runtime/ps/step_runner.h"
#include "trainer_runtime/ps/variable_client.h"
#include "trainer_runtime/ps/worker_server.h"
#include "trainer_runtime/rpc_auth/job_auth.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::ps {
namespace {

using ::testing::HasSubstr;

const std::string kSecret(64, 'a');
const std::string kOtherSecret(64, 'b');

using Calls = std::vector<std::pair<std::string, std::function<grpc::Status()>>>;

size_t MethodCount(const std::string& service) {
  const google::protobuf::ServiceDescriptor* d =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(service);
  return d == nullptr ? 0 : static_cast<size_t>(d->method_count());
}

std::unique_ptr<grpc::ClientContext> Context() {
  auto context = std::make_unique<grpc::ClientContext>();
  context->set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
  return context;
}

proto::TensorChunk Chunk() {
  proto::TensorChunk chunk;
  chunk.set_values(std::string(16 * 4, '\x01'));
  return chunk;
}

// Every method of the ParameterServer service, once.
Calls EveryPsCall(proto::ParameterServer::Stub& stub) {
  return {
      {"Configure",
       [&stub] {
         proto::ConfigureRequest request;
         request.mutable_optimizer()->set_kind("sgd");
         proto::ShardDef* shard = request.add_shards();
         shard->set_name("other");
         shard->set_size(3);
         proto::ConfigureResponse response;
         return stub.Configure(Context().get(), request, &response);
       }},
      {"Assign",
       [&stub] {
         auto context = Context();
         proto::AssignResponse response;
         auto writer = stub.Assign(context.get(), &response);
         writer->Write(Chunk());
         writer->WritesDone();
         return writer->Finish();
       }},
      {"Pull",
       [&stub] {
         auto context = Context();
         auto reader = stub.Pull(context.get(), proto::PullRequest());
         proto::TensorChunk chunk;
         int chunks = 0;
         while (reader->Read(&chunk)) ++chunks;
         grpc::Status status = reader->Finish();
         return chunks == 0 ? status : grpc::Status(grpc::StatusCode::INTERNAL, "values leaked");
       }},
      {"Push",
       [&stub] {
         auto context = Context();
         proto::PushResponse response;
         auto writer = stub.Push(context.get(), &response);
         writer->Write(Chunk());
         writer->WritesDone();
         return writer->Finish();
       }},
      {"Shutdown",
       [&stub] {
         proto::ShutdownResponse response;
         return stub.Shutdown(Context().get(), proto::ShutdownRequest(), &response);
       }},
  };
}

Calls EveryWorkerCall(proto::Worker::Stub& stub) {
  return {
      {"RunStep",
       [&stub] {
         proto::RunStepResponse response;
         return stub.RunStep(Context().get(), proto::RunStepRequest(), &response);
       }},
      {"Shutdown",
       [&stub] {
         proto::ShutdownResponse response;
         return stub.Shutdown(Context().get(), proto::ShutdownRequest(), &response);
       }},
  };
}

void ExpectUnauthenticated(Calls calls, size_t methods, const std::string& why) {
  ASSERT_EQ(calls.size(), methods) << "every method of the service is called";
  for (auto& [name, run] : calls) {
    const grpc::Status status = run();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << name;
    EXPECT_THAT(status.error_message(), HasSubstr(why)) << name;
  }
}

// A ps holding one shard "w" of 16 values, all 0.5.
std::unique_ptr<ParameterServer> StartPs() {
  auto server = ParameterServer::Start("127.0.0.1:0", kSecret);
  EXPECT_THAT(server, IsOk());
  OptimizerConfig sgd;
  sgd.kind = "sgd";
  sgd.sgd.learning_rate = 0.5f;
  EXPECT_THAT((*server)->store().Configure({{0, "w", 16}}, sgd), IsOk());
  EXPECT_THAT((*server)->store().Assign(0, 0, 0, std::vector<float>(16, 0.5f), 0), IsOk());
  return *std::move(server);
}

std::vector<float> Values(ParameterServer& server) {
  return server.store().Snapshot(false)->at(0).values;
}

TEST(PsAuthTest, ParameterServerRefusesEveryCallWithoutOrWithAnotherSecret) {
  for (const auto& [caller, why] :
       {std::pair{rpc_auth::JobAuth(), "no job secret"},
        std::pair{rpc_auth::JobAuth(kOtherSecret), "another job's secret"}}) {
    std::unique_ptr<ParameterServer> server = StartPs();
    auto stub = proto::ParameterServer::NewStub(caller.Connect(server->address()));
    ExpectUnauthenticated(EveryPsCall(*stub),
                          MethodCount(proto::ParameterServer::service_full_name()), why);
    // Nothing changed: same shard, same values, still serving.
    EXPECT_EQ(Values(*server), std::vector<float>(16, 0.5f));
    EXPECT_EQ(*server->store().ShardSize(0), 16);
  }
}

TEST(PsAuthTest, WorkerRefusesEveryCallWithoutOrWithAnotherSecret) {
  for (const auto& [caller, why] :
       {std::pair{rpc_auth::JobAuth(), "no job secret"},
        std::pair{rpc_auth::JobAuth(kOtherSecret), "another job's secret"}}) {
    std::atomic<int> steps = 0;
    auto server = WorkerServer::Start(
        "127.0.0.1:0",
        [&steps](int64_t) -> absl::StatusOr<StepResult> {
          ++steps;
          return StepResult{};
        },
        kSecret);
    ASSERT_THAT(server, IsOk());
    auto stub = proto::Worker::NewStub(caller.Connect((*server)->address()));
    ExpectUnauthenticated(EveryWorkerCall(*stub), MethodCount(proto::Worker::service_full_name()),
                          why);
    EXPECT_EQ(steps.load(), 0);
  }
}

// The job's own clients, given the secret, train as before.
TEST(PsAuthTest, ClientsWithTheSecretPullPushAndRunSteps) {
  std::unique_ptr<ParameterServer> server = StartPs();
  auto plan = ShardPlan::Create({{"w", {16}}}, nullptr, 1);
  ASSERT_THAT(plan, IsOk());
  VariableClientOptions options;
  options.job_secret = kSecret;
  auto client = VariableClient::Create(*plan, {server->address()}, options);
  ASSERT_THAT(client, IsOk());
  nn::Parameter w("w", {16});
  for (int64_t i = 0; i < 16; ++i) w.grad.data()[i] = 1.0f;
  nn::Parameter* list[] = {&w};
  ASSERT_THAT((*client)->Pull(list), IsOk());
  EXPECT_FLOAT_EQ(w.value.data()[3], 0.5f);
  ASSERT_THAT((*client)->Push(list), IsOk());
  EXPECT_EQ(Values(*server), std::vector<float>(16, 0.0f));  // 0.5 - 0.5 * 1

  auto worker = WorkerServer::Start(
      "127.0.0.1:0",
      [](int64_t step) -> absl::StatusOr<StepResult> {
        return StepResult{.loss = static_cast<double>(step)};
      },
      kSecret);
  ASSERT_THAT(worker, IsOk());
  GrpcStepRunner runner("worker 0", (*worker)->address(), absl::Seconds(5), kSecret);
  auto result = runner.RunStep(7);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->loss, 7.0);
  // Without the secret the chief's runner is turned away.
  GrpcStepRunner stranger("worker 0", (*worker)->address(), absl::Seconds(5));
  EXPECT_TRUE(absl::IsUnauthenticated(stranger.RunStep(1).status()));
}

TEST(PsAuthTest, WithoutASecretServersListenOnLoopbackOnly) {
  auto ps = ParameterServer::Start("0.0.0.0:0");
  ASSERT_FALSE(ps.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(ps.status())) << ps.status();
  EXPECT_THAT(std::string(ps.status().message()), HasSubstr("TRAINPKG_JOB_SECRET"));
  auto worker = WorkerServer::Start("0.0.0.0:0", [](int64_t) { return StepResult{}; });
  ASSERT_FALSE(worker.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(worker.status())) << worker.status();
  EXPECT_THAT(ParameterServer::Start("127.0.0.1:0"), IsOk());
}

}  // namespace
}  // namespace trainpkg::ps
