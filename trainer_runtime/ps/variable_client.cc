#include "trainer_runtime/ps/variable_client.h"

#include <chrono>
#include <cstring>
#include <mutex>
#include <thread>
#include <utility>

#include "base/check.h"
#include "base/grpc_status.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "grpcpp/grpcpp.h"
#include "trainer_runtime/ps/internal/chunks.h"
#include "trainer_runtime/ps/internal/element_range.h"
#include "trainer_runtime/ps/internal/listen.h"
#include "trainer_runtime/ps/proto/ps.grpc.pb.h"

namespace trainpkg::ps {

struct VariableClient::Task {
  std::string address;
  std::unique_ptr<proto::ParameterServer::Stub> stub;
};

namespace {

void SetDeadline(grpc::ClientContext& context, absl::Duration timeout) {
  context.set_deadline(std::chrono::system_clock::now() +
                       std::chrono::milliseconds(absl::ToInt64Milliseconds(timeout)));
}

proto::OptimizerConfig ToProto(const OptimizerConfig& c) {
  proto::OptimizerConfig p;
  p.set_kind(c.kind);
  if (c.kind == "sgd") {
    p.set_learning_rate(c.sgd.learning_rate);
    p.set_momentum(c.sgd.momentum);
    p.set_nesterov(c.sgd.nesterov);
  } else if (c.kind == "adagrad") {
    p.set_learning_rate(c.adagrad.learning_rate);
    p.set_initial_accumulator_value(c.adagrad.initial_accumulator_value);
    p.set_epsilon(c.adagrad.epsilon);
  } else {
    p.set_learning_rate(c.adam.learning_rate);
    p.set_beta_1(c.adam.beta_1);
    p.set_beta_2(c.adam.beta_2);
    p.set_epsilon(c.adam.epsilon);
  }
  return p;
}

}  // namespace

absl::StatusOr<std::unique_ptr<VariableClient>> VariableClient::Create(
    ShardPlan plan, std::vector<std::string> ps_addresses, VariableClientOptions options) {
  if (static_cast<int>(ps_addresses.size()) != plan.num_ps()) {
    return absl::InvalidArgumentError(fmt::format(
        "{} parameter server addresses for a plan over {}", ps_addresses.size(), plan.num_ps()));
  }
  std::vector<std::unique_ptr<Task>> tasks;
  const rpc_auth::JobAuth auth(options.job_secret);
  for (std::string& address : ps_addresses) {
    auto task = std::make_unique<Task>();
    task->stub = proto::ParameterServer::NewStub(internal::Connect(address, auth));
    task->address = std::move(address);
    tasks.push_back(std::move(task));
  }
  return std::unique_ptr<VariableClient>(
      new VariableClient(std::move(plan), std::move(tasks), options));
}

VariableClient::VariableClient(ShardPlan plan, std::vector<std::unique_ptr<Task>> tasks,
                               VariableClientOptions options)
    : plan_(std::move(plan)), tasks_(std::move(tasks)), options_(options) {}

VariableClient::~VariableClient() = default;

absl::Status VariableClient::TaskError(int ps, const absl::Status& status) const {
  if (status.ok()) return status;
  const std::string& address = tasks_[static_cast<size_t>(ps)]->address;
  if (absl::IsUnavailable(status) || absl::IsDeadlineExceeded(status)) {
    return absl::AbortedError(
        fmt::format("ps {} ({}) unreachable: {}", ps, address, std::string(status.message())));
  }
  return base::WithContext(status, fmt::format("ps {} ({})", ps, address));
}

absl::Status VariableClient::ForEachTask(const std::function<absl::Status(int)>& fn) {
  const int n = static_cast<int>(tasks_.size());
  std::vector<absl::Status> results(static_cast<size_t>(n));
  if (n == 1) {
    results[0] = fn(0);
  } else {
    std::vector<std::thread> threads;
    for (int ps = 0; ps < n; ++ps) {
      threads.emplace_back([&, ps] { results[static_cast<size_t>(ps)] = fn(ps); });
    }
    for (std::thread& t : threads) t.join();
  }
  // The first error in task order, not in time, so one failure reads the same
  // on every run.
  for (int ps = 0; ps < n; ++ps) {
    if (!results[static_cast<size_t>(ps)].ok())
      return TaskError(ps, results[static_cast<size_t>(ps)]);
  }
  return absl::OkStatus();
}

absl::Status VariableClient::Configure(const OptimizerConfig& optimizer) {
  TP_RETURN_IF_ERROR(MakeOptimizer(optimizer).status());
  return ForEachTask([&](int ps) {
    proto::ConfigureRequest request;
    *request.mutable_optimizer() = ToProto(optimizer);
    for (int id : plan_.ShardsOn(ps)) {
      const Shard& shard = plan_.shards()[static_cast<size_t>(id)];
      proto::ShardDef* def = request.add_shards();
      def->set_id(shard.id);
      def->set_name(shard.name);
      def->set_size(shard.size);
    }
    grpc::ClientContext context;
    SetDeadline(context, options_.connect_timeout);
    // Configure is the chief's first call; the ps tasks may still be starting,
    // so it waits for them up to the connect timeout. Later calls fail fast: a
    // task that goes away after that is a failure to report.
    context.set_wait_for_ready(true);
    proto::ConfigureResponse response;
    sent_ += internal::WireBytes(request);
    grpc::Status s = tasks_[static_cast<size_t>(ps)]->stub->Configure(&context, request, &response);
    return base::FromGrpcStatus(s);
  });
}

absl::Status VariableClient::Assign(const VariableState& state) {
  const auto& vars = plan_.variables();
  if (state.values.size() != vars.size() ||
      (!state.slots.empty() && state.slots.size() != vars.size()) ||
      (!state.iterations.empty() && state.iterations.size() != plan_.shards().size())) {
    return absl::InvalidArgumentError(fmt::format(
        "state for {} variables / {} iteration counts; the plan has {} variables, {} shards",
        state.values.size(), state.iterations.size(), vars.size(), plan_.shards().size()));
  }
  for (size_t v = 0; v < vars.size(); ++v) {
    const size_t n = static_cast<size_t>(nn::NumElements(vars[v].shape));
    bool fits = state.values[v].size() == n;
    if (!state.slots.empty()) {
      for (const auto& slot : state.slots[v]) fits = fits && slot.size() == n;
    }
    if (!fits) {
      return absl::InvalidArgumentError(
          fmt::format("state of variable {} does not have its {} values", vars[v].name, n));
    }
  }
  return ForEachTask([&](int ps) {
    grpc::ClientContext context;
    SetDeadline(context, options_.call_timeout);
    proto::AssignResponse response;
    auto writer = tasks_[static_cast<size_t>(ps)]->stub->Assign(&context, &response);
    auto write = [&](const proto::TensorChunk& chunk) {
      sent_ += internal::WireBytes(chunk);
      return writer->Write(chunk);
    };
    bool ok = true;
    for (int id : plan_.ShardsOn(ps)) {
      const Shard& shard = plan_.shards()[static_cast<size_t>(id)];
      const size_t v = static_cast<size_t>(shard.variable);
      const int64_t iterations =
          state.iterations.empty() ? 0 : state.iterations[static_cast<size_t>(id)];
      std::span<const float> values(state.values[v].data() + shard.offset,
                                    static_cast<size_t>(shard.size));
      ok = ok && internal::ForEachChunk(id, 0, iterations, values, options_.chunk_bytes, write);
      if (!state.slots.empty()) {
        for (size_t k = 0; ok && k < state.slots[v].size(); ++k) {
          std::span<const float> slot(state.slots[v][k].data() + shard.offset,
                                      static_cast<size_t>(shard.size));
          ok = internal::ForEachChunk(id, static_cast<int>(k) + 1, iterations, slot,
                                      options_.chunk_bytes, write);
        }
      }
    }
    if (ok) writer->WritesDone();
    return base::FromGrpcStatus(writer->Finish());
  });
}

absl::Status VariableClient::Pull(std::span<nn::Parameter* const> parameters) {
  const auto& vars = plan_.variables();
  TP_CHECK(parameters.size() == vars.size(), "{} parameters for {} variables", parameters.size(),
           vars.size());
  return ForEachTask([&](int ps) -> absl::Status {
    grpc::ClientContext context;
    SetDeadline(context, options_.call_timeout);
    proto::PullRequest request;
    request.set_chunk_bytes(options_.chunk_bytes);
    sent_ += internal::WireBytes(request);
    auto reader = tasks_[static_cast<size_t>(ps)]->stub->Pull(&context, request);
    proto::TensorChunk chunk;
    absl::Status bad;
    while (reader->Read(&chunk)) {
      received_ += internal::WireBytes(chunk);
      // After a bad chunk the stream is still read to its end: gRPC's Finish is
      // for a stream whose Read has returned false, and the server's status may
      // explain the bad chunk.
      if (!bad.ok()) continue;
      const int id = chunk.shard();
      const std::string& bytes = chunk.values();
      if (id < 0 || id >= static_cast<int>(plan_.shards().size()) || chunk.slot() != 0 ||
          bytes.size() % 4 != 0) {
        bad = absl::DataLossError(
            fmt::format("unexpected chunk for shard {} slot {}", id, chunk.slot()));
        continue;
      }
      const Shard& shard = plan_.shards()[static_cast<size_t>(id)];
      const int64_t count = static_cast<int64_t>(bytes.size() / 4);
      // A shard from another task means the two sides' plans differ; its values
      // must not land in the model.
      if (shard.ps != ps || !internal::ElementRangeFits(chunk.offset(), count, shard.size)) {
        bad = absl::DataLossError(fmt::format("chunk [{}, +{}) outside shard {} ({} values)",
                                              chunk.offset(), count, shard.name, shard.size));
        continue;
      }
      nn::Parameter* p = parameters[static_cast<size_t>(shard.variable)];
      std::memcpy(p->value.data() + shard.offset + chunk.offset(), bytes.data(), bytes.size());
    }
    TP_RETURN_IF_ERROR(base::FromGrpcStatus(reader->Finish()));
    return bad;
  });
}

absl::Status VariableClient::Push(std::span<nn::Parameter* const> parameters) {
  TP_CHECK(parameters.size() == plan_.variables().size(), "{} parameters for {} variables",
           parameters.size(), plan_.variables().size());
  return ForEachTask([&](int ps) {
    grpc::ClientContext context;
    SetDeadline(context, options_.call_timeout);
    proto::PushResponse response;
    auto writer = tasks_[static_cast<size_t>(ps)]->stub->Push(&context, &response);
    auto write = [&](const proto::TensorChunk& chunk) {
      sent_ += internal::WireBytes(chunk);
      return writer->Write(chunk);
    };
    bool ok = true;
    for (int id : plan_.ShardsOn(ps)) {
      const Shard& shard = plan_.shards()[static_cast<size_t>(id)];
      const nn::Parameter* p = parameters[static_cast<size_t>(shard.variable)];
      std::span<const float> grad(p->grad.data() + shard.offset, static_cast<size_t>(shard.size));
      ok = ok && internal::ForEachChunk(id, 0, 0, grad, options_.chunk_bytes, write);
    }
    // A failed Write means the stream is broken; Finish then gives the reason.
    if (ok) writer->WritesDone();
    return base::FromGrpcStatus(writer->Finish());
  });
}

absl::StatusOr<VariableState> VariableClient::PullState() {
  const auto& vars = plan_.variables();
  VariableState state;
  state.values.resize(vars.size());
  state.slots.resize(vars.size());
  state.iterations.assign(plan_.shards().size(), 0);
  for (size_t v = 0; v < vars.size(); ++v) {
    state.values[v].resize(static_cast<size_t>(nn::NumElements(vars[v].shape)));
  }
  std::mutex mu;  // guards growing state.slots
  absl::Status pulled = ForEachTask([&](int ps) -> absl::Status {
    grpc::ClientContext context;
    SetDeadline(context, options_.call_timeout);
    proto::PullRequest request;
    request.set_with_optimizer_state(true);
    request.set_chunk_bytes(options_.chunk_bytes);
    auto reader = tasks_[static_cast<size_t>(ps)]->stub->Pull(&context, request);
    proto::TensorChunk chunk;
    absl::Status bad;
    while (reader->Read(&chunk)) {
      received_ += internal::WireBytes(chunk);
      const int id = chunk.shard();
      const int64_t count = static_cast<int64_t>(chunk.values().size() / 4);
      if (!bad.ok()) continue;
      if (id < 0 || id >= static_cast<int>(plan_.shards().size()) || chunk.slot() < 0 ||
          chunk.slot() > internal::kMaxSlot || chunk.values().size() % 4 != 0 ||
          !internal::ElementRangeFits(chunk.offset(), count,
                                      plan_.shards()[static_cast<size_t>(id)].size)) {
        bad = absl::DataLossError(
            fmt::format("unexpected chunk for shard {} slot {}", id, chunk.slot()));
        continue;
      }
      const Shard& shard = plan_.shards()[static_cast<size_t>(id)];
      const size_t v = static_cast<size_t>(shard.variable);
      std::lock_guard<std::mutex> lock(mu);
      state.iterations[static_cast<size_t>(id)] = chunk.iterations();
      float* dest;
      if (chunk.slot() == 0) {
        dest = state.values[v].data();
      } else {
        auto& slots = state.slots[v];
        while (slots.size() < static_cast<size_t>(chunk.slot())) {
          slots.emplace_back(state.values[v].size());
        }
        dest = slots[static_cast<size_t>(chunk.slot() - 1)].data();
      }
      std::memcpy(dest + shard.offset + chunk.offset(), chunk.values().data(),
                  chunk.values().size());
    }
    TP_RETURN_IF_ERROR(base::FromGrpcStatus(reader->Finish()));
    return bad;
  });
  if (!pulled.ok()) return pulled;
  return state;
}

absl::Status VariableClient::ShutdownAll() {
  return ForEachTask([&](int ps) {
    grpc::ClientContext context;
    SetDeadline(context, absl::Seconds(5));
    proto::ShutdownRequest request;
    proto::ShutdownResponse response;
    return base::FromGrpcStatus(
        tasks_[static_cast<size_t>(ps)]->stub->Shutdown(&context, request, &response));
  });
}

}  // namespace trainpkg::ps
