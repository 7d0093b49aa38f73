// Fuzz target: the coordination service's gRPC handlers called directly, no
// network. The first byte's low bit picks a job of one or two ranks; the
// rest is a script of calls, each [rpc byte][length byte][serialized
// request]: Register, Heartbeat, KeySet, KeyGet, KeyAdd, Barrier, Goodbye
// against one CoordinationState. Waits (KeyGet, Barrier, the rendezvous)
// are cut to at most 1 ms so a run never sleeps. Must never crash, hang or trip a sanitizer; errors
// are fine.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "absl/time/clock.h"
#include "grpcpp/server_context.h"
#include "trainer_runtime/coordination/internal/coordination_service.h"
#include "trainer_runtime/coordination/internal/coordination_state.h"
#include "trainer_runtime/coordination/proto/coordination.pb.h"
#include "trainer_runtime/rpc_auth/job_auth.h"

namespace {

using namespace trainpkg::coordination;

template <typename Request, typename Response, typename Handler>
void Call(std::string_view payload, Handler handler) {
  Request request;
  if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
  Response response;
  handler(&request, &response);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  internal::StateOptions options;
  options.world_size = 1 + (data[0] & 1);
  options.rank_names = {"chief 0", "worker 0"};
  options.rank_names.resize(static_cast<size_t>(options.world_size));
  options.rendezvous_timeout = absl::Milliseconds(1);
  options.start = absl::Now();
  internal::CoordinationState state(options);
  internal::CoordinationService service(state, trainpkg::rpc_auth::JobAuth());
  // gRPC always passes a context (the handlers check the job secret in it
  // first); with no secret, none is needed in its metadata.
  grpc::ServerContext context;
  std::string_view script(reinterpret_cast<const char*>(data) + 1, size - 1);
  while (script.size() >= 2) {
    const uint8_t rpc = static_cast<uint8_t>(script[0]) % 7;
    const size_t length = std::min<size_t>(static_cast<uint8_t>(script[1]), script.size() - 2);
    std::string_view payload = script.substr(2, length);
    script.remove_prefix(2 + length);
    switch (rpc) {
      case 0:
        Call<proto::RegisterRequest, proto::RegisterResponse>(
            payload, [&](auto* q, auto* r) { (void)service.Register(&context, q, r); });
        break;
      case 1:
        Call<proto::HeartbeatRequest, proto::HeartbeatResponse>(
            payload, [&](auto* q, auto* r) { (void)service.Heartbeat(&context, q, r); });
        break;
      case 2:
        Call<proto::KeySetRequest, proto::KeySetResponse>(
            payload, [&](auto* q, auto* r) { (void)service.KeySet(&context, q, r); });
        break;
      case 3:
        Call<proto::KeyGetRequest, proto::KeyGetResponse>(payload, [&](auto* q, auto* r) {
          q->set_timeout_ms(std::clamp<int64_t>(q->timeout_ms(), -1, 1));
          (void)service.KeyGet(&context, q, r);
        });
        break;
      case 4:
        Call<proto::KeyAddRequest, proto::KeyAddResponse>(
            payload, [&](auto* q, auto* r) { (void)service.KeyAdd(&context, q, r); });
        break;
      case 5:
        Call<proto::BarrierRequest, proto::BarrierResponse>(payload, [&](auto* q, auto* r) {
          q->set_timeout_ms(std::clamp<int64_t>(q->timeout_ms(), -1, 1));
          (void)service.Barrier(&context, q, r);
        });
        break;
      default:
        Call<proto::GoodbyeRequest, proto::GoodbyeResponse>(
            payload, [&](auto* q, auto* r) { (void)service.Goodbye(&context, q, r); });
    }
  }
  state.Shutdown();
  return 0;
}
