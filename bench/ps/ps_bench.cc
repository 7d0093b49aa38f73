// Parameter-server training throughput and traffic (bench/README.md, "ps"):
// the digits MLP (64-256-128-10, 50,826 parameters) trained asynchronously
// with 1 or 2 workers against 1 or 2 ps, every task a set of threads in this
// process talking gRPC over 127.0.0.1. For each layout: steps/s at the
// chief, and the bytes each worker's VariableClient sent and received per
// step (serialized messages + gRPC's 5-byte prefixes) against the model's
// parameter bytes (target: <= 2.1x, a pull and a push of every parameter).
//
//   ps_bench [--steps=600] [--hidden=256] [--json=PATH]
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/numbers.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/ps/dataset_batches.h"
#include "trainer_runtime/ps/parameter_server.h"
#include "trainer_runtime/ps/run_chief.h"
#include "trainer_runtime/ps/training_step.h"
#include "trainer_runtime/ps/worker_server.h"

namespace {

using namespace trainpkg;  // NOLINT: a bench's main

nn::Sequential Mlp(int64_t hidden) {
  nn::Sequential model;
  (void)model.Add(nn::Dense::Create(64, hidden));
  (void)model.Add(std::make_unique<nn::ReLU>());
  (void)model.Add(nn::Dense::Create(hidden, hidden / 2));
  (void)model.Add(std::make_unique<nn::ReLU>());
  (void)model.Add(nn::Dense::Create(hidden / 2, 10));
  model.InitializeParameters(42);
  return model;
}

data::Dataset Synthetic(int n) {
  std::mt19937 rng(1);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  std::vector<float> features(static_cast<size_t>(n) * 64);
  std::vector<int32_t> labels(static_cast<size_t>(n));
  for (float& f : features) f = u(rng);
  for (int i = 0; i < n; ++i) labels[static_cast<size_t>(i)] = i % 10;
  return *data::Dataset::Create({64}, std::move(features), std::move(labels));
}

struct Worker {
  nn::Sequential model;
  std::unique_ptr<ps::VariableClient> variables;
  std::unique_ptr<ps::DatasetBatches> batches;
  std::unique_ptr<ps::WorkerServer> server;
};

struct Row {
  int workers = 0;
  int ps = 0;
  double steps_per_second = 0;
  double wire_bytes_per_step_per_worker = 0;
  double ratio = 0;
};

absl::StatusOr<Row> Measure(int num_workers, int num_ps, int64_t steps, int64_t hidden,
                            const std::string& checkpoint_dir, int64_t* param_bytes) {
  std::vector<std::unique_ptr<ps::ParameterServer>> servers;
  std::vector<std::string> addresses;
  for (int i = 0; i < num_ps; ++i) {
    auto s = ps::ParameterServer::Start("127.0.0.1:0");
    if (!s.ok()) return s.status();
    addresses.push_back((*s)->address());
    servers.push_back(*std::move(s));
  }
  const data::Dataset train = Synthetic(2048);
  std::vector<std::unique_ptr<Worker>> workers;
  std::vector<std::unique_ptr<ps::StepRunner>> runners;
  for (int i = 0; i < num_workers; ++i) {
    auto w = std::make_unique<Worker>(Worker{Mlp(hidden), nullptr, nullptr, nullptr});
    auto plan =
        ps::ShardPlan::Create(ps::ShardPlan::VariablesOf(w->model.parameters()), nullptr, num_ps);
    if (!plan.ok()) return plan.status();
    auto client = ps::VariableClient::Create(*plan, addresses);
    if (!client.ok()) return client.status();
    w->variables = *std::move(client);
    w->batches = std::make_unique<ps::DatasetBatches>(train.Shard(i, num_workers), 32, 7);
    Worker* raw = w.get();
    auto server = ps::WorkerServer::Start("127.0.0.1:0", [raw](int64_t) {
      return ps::TrainingStep(raw->model, *raw->variables, raw->batches->Next());
    });
    if (!server.ok()) return server.status();
    w->server = *std::move(server);
    runners.push_back(std::make_unique<ps::GrpcStepRunner>(
        fmt::format("worker {}", i), w->server->address(), absl::Seconds(30)));
    workers.push_back(std::move(w));
  }
  nn::Sequential chief_model = Mlp(hidden);
  *param_bytes = chief_model.CountParameters() * 4;
  auto plan =
      ps::ShardPlan::Create(ps::ShardPlan::VariablesOf(chief_model.parameters()), nullptr, num_ps);
  auto chief_vars = ps::VariableClient::Create(*plan, addresses);
  ps::ChiefOptions options;
  options.steps_per_epoch = steps;
  options.optimizer.kind = "adam";
  options.checkpoint_dir = checkpoint_dir;
  const auto start = std::chrono::steady_clock::now();
  auto summary = ps::RunChief(chief_model, **chief_vars, std::move(runners), options);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (!summary.ok()) return summary.status();
  int64_t wire = 0;
  for (const auto& w : workers) wire += w->variables->bytes_sent() + w->variables->bytes_received();
  Row row;
  row.workers = num_workers;
  row.ps = num_ps;
  row.steps_per_second = static_cast<double>(steps) / seconds;
  // Every step runs on exactly one worker: bytes per step is per worker.
  row.wire_bytes_per_step_per_worker = static_cast<double>(wire) / static_cast<double>(steps);
  row.ratio = row.wire_bytes_per_step_per_worker / static_cast<double>(*param_bytes);
  return row;
}

}  // namespace

int main(int argc, char** argv) {
  int64_t steps = 600;
  int64_t hidden = 256;
  std::string json_path;
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    bool ok = true;
    if (arg.starts_with("--steps=")) {
      ok = absl::SimpleAtoi(std::string(arg.substr(8)), &steps) && steps > 0;
    } else if (arg.starts_with("--hidden=")) {
      ok = absl::SimpleAtoi(std::string(arg.substr(9)), &hidden) && hidden >= 2;
    } else if (arg.starts_with("--json=")) {
      json_path = std::string(arg.substr(7));
    } else {
      ok = false;
    }
    if (!ok) {
      std::cerr << "usage: ps_bench [--steps=600] [--hidden=256] [--json=PATH]\n";
      return 2;
    }
  }
  char pattern[] = "/tmp/ps_bench.XXXXXX";
  if (::mkdtemp(pattern) == nullptr) return 1;
  std::vector<Row> rows;
  int64_t param_bytes = 0;
  for (int w : {1, 2}) {
    for (int p : {1, 2}) {
      auto row =
          Measure(w, p, steps, hidden, fmt::format("{}/w{}p{}", pattern, w, p), &param_bytes);
      if (!row.ok()) {
        std::cerr << "ps_bench: " << row.status() << "\n";
        return 1;
      }
      rows.push_back(*row);
    }
  }
  std::filesystem::remove_all(pattern);
  std::cout << fmt::format("model: {} parameter bytes; {} steps per layout\n", param_bytes, steps);
  std::cout << fmt::format("{:>7} {:>3} {:>9} {:>12} {:>12} {:>10}\n", "workers", "ps", "steps/s",
                           "vs 1w1p", "wire B/step", "wire/param");
  nlohmann::json out = {
      {"parameter_bytes", param_bytes}, {"steps", steps}, {"rows", nlohmann::json::array()}};
  for (const Row& r : rows) {
    std::cout << fmt::format("{:>7} {:>3} {:>9.1f} {:>11.2f}x {:>12.0f} {:>9.3f}x\n", r.workers,
                             r.ps, r.steps_per_second,
                             r.steps_per_second / rows[0].steps_per_second,
                             r.wire_bytes_per_step_per_worker, r.ratio);
    out["rows"].push_back({{"workers", r.workers},
                           {"ps", r.ps},
                           {"steps_per_second", r.steps_per_second},
                           {"wire_bytes_per_step_per_worker", r.wire_bytes_per_step_per_worker},
                           {"wire_to_parameter_bytes", r.ratio}});
  }
  if (!json_path.empty()) std::ofstream(json_path) << out.dump(2) << "\n";
  return 0;
}
