// Parameter-server training with every task a set of threads in this
// process: 2 ps and 2 workers on 127.0.0.1, the chief's RunChief driving
// them over gRPC, as the processes of a real job do.
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/ps/checkpoint_dir.h"
#include "trainer_runtime/ps/dataset_batches.h"
#include "trainer_runtime/ps/evaluate_model.h"
#include "trainer_runtime/ps/parameter_server.h"
#include "trainer_runtime/ps/run_chief.h"
#include "trainer_runtime/ps/training_step.h"
#include "trainer_runtime/ps/worker_server.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::ps {
namespace {

namespace fs = std::filesystem;

nn::Sequential Model() {
  nn::Sequential model;
  EXPECT_THAT(model.Add(nn::Dense::Create(4, 16)), IsOk());
  EXPECT_THAT(model.Add(std::make_unique<nn::ReLU>()), IsOk());
  EXPECT_THAT(model.Add(nn::Dense::Create(16, 2)), IsOk());
  model.InitializeParameters(1);
  return model;
}

// Two Gaussian blobs in 4-d, centred at -1 and +1.
data::Dataset Blobs(int n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<float> noise(0.0f, 0.6f);
  std::vector<float> features;
  std::vector<int32_t> labels;
  for (int i = 0; i < n; ++i) {
    const int label = i % 2;
    for (int d = 0; d < 4; ++d) features.push_back((label == 0 ? -1.0f : 1.0f) + noise(rng));
    labels.push_back(label);
  }
  return *data::Dataset::Create({4}, std::move(features), std::move(labels));
}

ShardPlan PlanFor(nn::Sequential& model, int num_ps) {
  auto partitioner = FixedShardsPartitioner(2);  // split every matrix in two
  return *ShardPlan::Create(ShardPlan::VariablesOf(model.parameters()), partitioner->get(), num_ps);
}

// One worker task: its model, its own data shard, its server.
struct Worker {
  nn::Sequential model = Model();
  std::unique_ptr<VariableClient> variables;
  std::unique_ptr<DatasetBatches> batches;
  std::unique_ptr<WorkerServer> server;
};

struct Cluster {
  std::vector<std::unique_ptr<ParameterServer>> ps;
  std::vector<std::string> ps_addresses;
  std::vector<std::unique_ptr<Worker>> workers;

  explicit Cluster(const data::Dataset& train) {
    for (int i = 0; i < 2; ++i) {
      ps.push_back(*ParameterServer::Start("127.0.0.1:0"));
      ps_addresses.push_back(ps.back()->address());
    }
    for (int i = 0; i < 2; ++i) {
      auto w = std::make_unique<Worker>();
      w->variables = *VariableClient::Create(PlanFor(w->model, 2), ps_addresses);
      w->batches = std::make_unique<DatasetBatches>(train.Shard(i, 2), 16, 100 + i);
      Worker* raw = w.get();
      w->server = *WorkerServer::Start("127.0.0.1:0", [raw](int64_t) {
        return TrainingStep(raw->model, *raw->variables, raw->batches->Next());
      });
      workers.push_back(std::move(w));
    }
  }

  std::vector<std::unique_ptr<StepRunner>> Runners() {
    std::vector<std::unique_ptr<StepRunner>> runners;
    for (size_t i = 0; i < workers.size(); ++i) {
      runners.push_back(std::make_unique<GrpcStepRunner>(
          "worker " + std::to_string(i), workers[i]->server->address(), absl::Seconds(30)));
    }
    return runners;
  }
};

class InProcessTrainingTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* tmp = std::getenv("TEST_TMPDIR");
    std::string pattern = std::string(tmp != nullptr ? tmp : "/tmp") + "/ps_in_process.XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }

  ChiefOptions Options(int64_t epochs) {
    ChiefOptions o;
    o.steps_per_epoch = 20;
    o.epochs = epochs;
    o.checkpoint_every = 20;
    o.optimizer.kind = "adam";
    o.optimizer.adam.learning_rate = 0.01f;
    o.checkpoint_dir = dir_;
    return o;
  }

  fs::path dir_;
};

TEST_F(InProcessTrainingTest, TrainsCheckpointsAndResumes) {
  const data::Dataset train = Blobs(400, 1);
  const data::Dataset test = Blobs(200, 2);
  {
    Cluster cluster(train);
    nn::Sequential chief_model = Model();
    auto variables = VariableClient::Create(PlanFor(chief_model, 2), cluster.ps_addresses);
    ASSERT_THAT(variables, IsOk());
    auto summary = RunChief(chief_model, **variables, cluster.Runners(), Options(3));
    ASSERT_THAT(summary, IsOk());
    EXPECT_EQ(summary->start_step, 0);
    EXPECT_EQ(summary->final_step, 60);
    EXPECT_EQ(summary->checkpoints_written, 3);
    auto metrics = EvaluateModel(chief_model, test);
    ASSERT_THAT(metrics, IsOk());
    EXPECT_GT(metrics->accuracy, 0.9);
  }
  CheckpointDir dir(dir_);
  EXPECT_THAT(*dir.Steps(), ::testing::ElementsAre(20, 40, 60));
  EXPECT_TRUE(dir.IsDone());

  // A rerun (fresh ps and workers) with one more epoch resumes at step 60.
  Cluster cluster(train);
  nn::Sequential chief_model = Model();
  auto variables = VariableClient::Create(PlanFor(chief_model, 2), cluster.ps_addresses);
  auto summary = RunChief(chief_model, **variables, cluster.Runners(), Options(4));
  ASSERT_THAT(summary, IsOk());
  EXPECT_EQ(summary->start_step, 60);
  EXPECT_EQ(summary->final_step, 80);
  EXPECT_EQ(summary->checkpoints_written, 1);
  EXPECT_GT(EvaluateModel(chief_model, test)->accuracy, 0.9);
}

TEST_F(InProcessTrainingTest, StepsPerEpochIsRequired) {
  nn::Sequential model = Model();
  auto variables = VariableClient::Create(PlanFor(model, 1), {"127.0.0.1:1"});
  std::vector<std::unique_ptr<StepRunner>> runners;
  runners.push_back(std::make_unique<GrpcStepRunner>("worker 0", "127.0.0.1:1", absl::Seconds(1)));
  ChiefOptions options = Options(1);
  options.steps_per_epoch = 0;
  auto summary = RunChief(model, **variables, std::move(runners), options);
  EXPECT_EQ(summary.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(summary.status().message()), ::testing::HasSubstr("steps_per_epoch"));
}

TEST_F(InProcessTrainingTest, AnUnreachablePsFailsStepsAndTheJobNamingIt) {
  const data::Dataset train = Blobs(100, 1);
  Cluster cluster(train);
  nn::Sequential chief_model = Model();
  VariableClientOptions short_wait;
  short_wait.connect_timeout = absl::Seconds(2);
  auto variables =
      VariableClient::Create(PlanFor(chief_model, 2), cluster.ps_addresses, short_wait);
  ASSERT_THAT((*variables)->Configure(Options(1).optimizer), IsOk());
  const std::string gone = cluster.ps_addresses[1];
  cluster.ps[1].reset();
  const std::string expected = "ps 1 (" + gone + ") unreachable";

  // A worker's step: Aborted (not Unavailable, which would read as a dead
  // worker to the coordinator).
  Worker& worker = *cluster.workers[0];
  auto step = TrainingStep(worker.model, *worker.variables, worker.batches->Next());
  EXPECT_EQ(step.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(step.status().message()), ::testing::HasSubstr(expected));

  auto summary = RunChief(chief_model, **variables, cluster.Runners(), Options(1));
  ASSERT_FALSE(summary.ok());
  EXPECT_THAT(std::string(summary.status().message()), ::testing::HasSubstr(expected));
}

}  // namespace
}  // namespace trainpkg::ps
