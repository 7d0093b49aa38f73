// The coordination service answers only calls carrying the job's secret
// (issue #16 finding 16): every RPC without it or with another job's is
// UNAUTHENTICATED, the job's own clients work, and without a secret the
// server listens on loopback only.
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "google/protobuf/descriptor.h"
#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/coordination/coordination_client.h"
#include "trainer_runtime/coordination/coordination_server.h"
#include "trainer_runtime/coordination/coordinator.h"
#include "trainer_runtime/coordination/proto/coordination.grpc.pb.h"
#include "trainer_runtime/coordination/rank_names.h"
#include "trainer_runtime/rpc_auth/job_auth.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::coordination {
namespace {

using ::testing::HasSubstr;

const std::string kSecret(64, 'a');
const std::string kOtherSecret(64, 'b');

CoordinationOptions Options(std::string secret) {
  return {.heartbeat_interval = absl::Milliseconds(100),
          .heartbeat_timeout = absl::Seconds(1),
          .rendezvous_timeout = absl::Seconds(2),
          .shutdown_timeout = absl::Seconds(2),
          .job_secret = std::move(secret)};
}

// Every method of the Coordination service, called once on `stub`.
std::vector<std::pair<std::string, std::function<grpc::Status()>>> EveryCall(
    proto::Coordination::Stub& stub) {
  auto call = [&stub](auto method, auto request, auto response) {
    return [&stub, method, request, response]() mutable {
      grpc::ClientContext context;
      context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(5));
      return (stub.*method)(&context, request, &response);
    };
  };
  proto::KeySetRequest set;
  set.set_key("k");
  set.set_value("v");
  proto::KeyGetRequest get;
  get.set_key("k");
  proto::KeyAddRequest add;
  add.set_key("n");
  add.set_delta(1);
  proto::BarrierRequest barrier;
  barrier.set_name("b");
  proto::RegisterRequest join;
  join.set_world_size(1);
  return {
      {"Register", call(&proto::Coordination::Stub::Register, join, proto::RegisterResponse())},
      {"Heartbeat", call(&proto::Coordination::Stub::Heartbeat, proto::HeartbeatRequest(),
                         proto::HeartbeatResponse())},
      {"KeySet", call(&proto::Coordination::Stub::KeySet, set, proto::KeySetResponse())},
      {"KeyGet", call(&proto::Coordination::Stub::KeyGet, get, proto::KeyGetResponse())},
      {"KeyAdd", call(&proto::Coordination::Stub::KeyAdd, add, proto::KeyAddResponse())},
      {"Barrier", call(&proto::Coordination::Stub::Barrier, barrier, proto::BarrierResponse())},
      {"Goodbye", call(&proto::Coordination::Stub::Goodbye, proto::GoodbyeRequest(),
                       proto::GoodbyeResponse())},
  };
}

void ExpectEveryCallUnauthenticated(const std::string& address, const rpc_auth::JobAuth& caller,
                                    const std::string& why) {
  auto stub = proto::Coordination::NewStub(caller.Connect(address));
  auto calls = EveryCall(*stub);
  // Every method of the service is called: a new one must be added here.
  const google::protobuf::ServiceDescriptor* service =
      google::protobuf::DescriptorPool::generated_pool()->FindServiceByName(
          proto::Coordination::service_full_name());
  ASSERT_NE(service, nullptr);
  ASSERT_EQ(calls.size(), static_cast<size_t>(service->method_count()));
  for (auto& [name, run] : calls) {
    const grpc::Status status = run();
    EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << name;
    EXPECT_THAT(status.error_message(), HasSubstr(why)) << name;
    EXPECT_THAT(status.error_message(), HasSubstr("TRAINPKG_JOB_SECRET")) << name;
    EXPECT_THAT(status.error_message(), ::testing::Not(HasSubstr(kSecret))) << name;
  }
}

TEST(CoordinationAuthTest, EveryCallWithoutTheSecretIsUnauthenticated) {
  auto server = CoordinationServer::Start("127.0.0.1:0", {PlainRankName(0)}, Options(kSecret));
  ASSERT_THAT(server, IsOk());
  ExpectEveryCallUnauthenticated((*server)->address(), rpc_auth::JobAuth(), "no job secret");
  // Nothing got in: the store is empty and nobody joined.
  EXPECT_THAT((*server)->JobStatus(), IsOk());
}

TEST(CoordinationAuthTest, EveryCallWithAnotherJobsSecretIsUnauthenticated) {
  auto server = CoordinationServer::Start("127.0.0.1:0", {PlainRankName(0)}, Options(kSecret));
  ASSERT_THAT(server, IsOk());
  ExpectEveryCallUnauthenticated((*server)->address(), rpc_auth::JobAuth(kOtherSecret),
                                 "another job's secret");
}

TEST(CoordinationAuthTest, ClientsWithTheSecretRendezvousAndShareTheStore) {
  const std::vector<std::string> names = {PlainRankName(0), PlainRankName(1)};
  auto server = CoordinationServer::Start("127.0.0.1:0", names, Options(kSecret));
  ASSERT_THAT(server, IsOk());
  std::vector<std::unique_ptr<CoordinationClient>> clients;
  for (int r = 0; r < 2; ++r) {
    auto client = CoordinationClient::Create((*server)->address(), r, names, Options(kSecret));
    ASSERT_THAT(client, IsOk());
    clients.push_back(*std::move(client));
  }
  std::thread other([&] { EXPECT_THAT(clients[1]->Register(), IsOk()); });
  ASSERT_THAT(clients[0]->Register(), IsOk());
  other.join();
  ASSERT_THAT(clients[0]->Set("gloo/rank0", "addr"), IsOk());
  EXPECT_EQ(*clients[1]->Get("gloo/rank0", absl::Seconds(1)), "addr");
  for (auto& client : clients) EXPECT_THAT(client->Goodbye(), IsOk());
  EXPECT_THAT((*server)->Shutdown(), IsOk());
}

// A client of another job is turned away at the rendezvous, with the
// reason in its error.
TEST(CoordinationAuthTest, ClientWithAnotherSecretCannotJoin) {
  auto server = CoordinationServer::Start("127.0.0.1:0", {PlainRankName(0)}, Options(kSecret));
  ASSERT_THAT(server, IsOk());
  auto client = CoordinationClient::Create((*server)->address(), 0, {PlainRankName(0)},
                                           Options(kOtherSecret));
  ASSERT_THAT(client, IsOk());
  absl::Status joined = (*client)->Register();
  EXPECT_TRUE(absl::IsUnauthenticated(joined)) << joined;
}

TEST(CoordinationAuthTest, WithoutASecretTheServerListensOnLoopbackOnly) {
  auto wide = CoordinationServer::Start("0.0.0.0:0", {PlainRankName(0)}, Options(""));
  ASSERT_FALSE(wide.ok());
  EXPECT_TRUE(absl::IsFailedPrecondition(wide.status())) << wide.status();
  EXPECT_THAT(std::string(wide.status().message()),
              HasSubstr("refusing to serve on 0.0.0.0:0 without authentication: set "
                        "TRAINPKG_JOB_SECRET"));
  EXPECT_THAT(CoordinationServer::Start("127.0.0.1:0", {PlainRankName(0)}, Options("")), IsOk());
  EXPECT_THAT(CoordinationServer::Start("[::1]:0", {PlainRankName(0)}, Options("")), IsOk());
}

// Coordinator::Start takes the secret from ClusterInfo (TRAINPKG_JOB_SECRET).
TEST(CoordinationAuthTest, CoordinatorUsesTheClusterInfosSecret) {
  runtime::ClusterInfo info;  // rank 0 of 1
  info.job_secret = kSecret;
  auto coordinator = Coordinator::Start(info, Options(""));
  ASSERT_THAT(coordinator, IsOk());
  EXPECT_THAT((*coordinator)->client().Set("k", "v"), IsOk());
  EXPECT_THAT((*coordinator)->Shutdown(), IsOk());
}

TEST(JobAuthTest, LoopbackHosts) {
  for (const char* host : {"127.0.0.1", "127.1.2.3", "localhost", "::1", "[::1]"}) {
    EXPECT_TRUE(rpc_auth::IsLoopbackHost(host)) << host;
  }
  for (const char* host : {"0.0.0.0", "10.0.0.1", "::", "[::]", "example.com", "", "128.0.0.1",
                           "workerpool0-0", "::ffff:127.0.0.1"}) {
    EXPECT_FALSE(rpc_auth::IsLoopbackHost(host)) << host;
  }
}

}  // namespace
}  // namespace trainpkg::coordination
