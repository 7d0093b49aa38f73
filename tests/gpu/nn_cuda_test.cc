// nn on the GPU: every layer, loss and optimizer run through the CUDA
// kernels matches its CPU twin (whose gradients the CPU tests check against
// finite differences) within float tolerance, and a small model trains the
// same on both. Skipped without a usable CUDA device.
#include <cmath>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/trainer_runtime/nn/gradient_check.h"
#include "trainer_runtime/nn/adagrad.h"
#include "trainer_runtime/nn/adam.h"
#include "trainer_runtime/nn/binary_cross_entropy.h"
#include "trainer_runtime/nn/conv2d.h"
#include "trainer_runtime/nn/dense.h"
#include "trainer_runtime/nn/dropout.h"
#include "trainer_runtime/nn/flatten.h"
#include "trainer_runtime/nn/global_average_pooling2d.h"
#include "trainer_runtime/nn/max_pool2d.h"
#include "trainer_runtime/nn/relu.h"
#include "trainer_runtime/nn/sequential.h"
#include "trainer_runtime/nn/sgd.h"
#include "trainer_runtime/nn/sparse_categorical_accuracy.h"
#include "trainer_runtime/nn/sparse_softmax_cross_entropy.h"

namespace trainpkg::nn {
namespace {

using testing::RandomTensor;

#define SKIP_WITHOUT_GPU()                                            \
  do {                                                                \
    absl::StatusOr<Tensor> probe = Tensor::Zeros({1}, Device::kCuda); \
    if (!probe.ok()) {                                                \
      GTEST_SKIP() << "no CUDA device: " << probe.status().message(); \
    }                                                                 \
  } while (0)

Tensor OnGpu(const Tensor& t) {
  absl::StatusOr<Tensor> gpu = t.To(Device::kCuda);
  EXPECT_TRUE(gpu.ok()) << gpu.status();
  return *std::move(gpu);
}

std::vector<float> Host(const Tensor& t) {
  std::vector<float> values(static_cast<size_t>(t.num_elements()));
  t.CopyToHost(values);
  return values;
}

void ExpectNear(const Tensor& cpu, const Tensor& gpu, const std::string& what) {
  ASSERT_EQ(cpu.shape(), gpu.shape()) << what;
  ASSERT_EQ(gpu.device(), Device::kCuda) << what;
  const std::vector<float> a = Host(cpu), b = Host(gpu);
  for (size_t i = 0; i < a.size(); ++i) {
    ASSERT_NEAR(a[i], b[i], 1e-5 + 1e-4 * std::abs(a[i])) << what << " at " << i;
  }
}

// Builds the layer twice with the same parameters, moves one to the GPU,
// and compares Forward and Backward (input and parameter gradients).
void ExpectGpuMatchesCpu(const std::function<std::unique_ptr<Layer>()>& make, const Shape& input,
                         bool training = true) {
  std::unique_ptr<Layer> cpu = make();
  std::unique_ptr<Layer> gpu = make();
  Rng rng_a(7), rng_b(7);
  cpu->InitializeParameters(rng_a);
  gpu->InitializeParameters(rng_b);
  for (size_t i = 0; i < cpu->parameters().size(); ++i) {  // non-zero biases too
    const Tensor values = RandomTensor(cpu->parameters()[i]->value.shape(), 11 + i);
    cpu->parameters()[i]->value = values;
    gpu->parameters()[i]->value = values;
  }
  ASSERT_TRUE(gpu->MoveParametersTo(Device::kCuda).ok());

  const Tensor x = testing::DistinctTensor(input, 3);
  const Shape out_shape = *cpu->OutputShape(input);
  Tensor y(out_shape);
  Tensor y_gpu = *Tensor::Zeros(out_shape, Device::kCuda);
  const Tensor x_gpu = OnGpu(x);
  cpu->Forward(x, training, &y);
  gpu->Forward(x_gpu, training, &y_gpu);
  ExpectNear(y, y_gpu, std::string(cpu->kind()) + " output");

  const Tensor dy = RandomTensor(out_shape, 5);
  Tensor dx(input);
  Tensor dx_gpu = *Tensor::Zeros(input, Device::kCuda);
  cpu->Backward(x, y, dy, &dx);
  gpu->Backward(x_gpu, y_gpu, OnGpu(dy), &dx_gpu);
  ExpectNear(dx, dx_gpu, std::string(cpu->kind()) + " input gradient");
  for (size_t i = 0; i < cpu->parameters().size(); ++i) {
    ExpectNear(cpu->parameters()[i]->grad, gpu->parameters()[i]->grad,
               cpu->parameters()[i]->name + " gradient");
  }
}

// Central finite differences through the GPU kernels themselves, as
// tests/trainer_runtime/nn/gradient_check.h does on the CPU (same step and
// tolerance): L = sum(output * r), every input and parameter value of
// `layer` (already on the GPU) perturbed by +-step on the host and copied
// over. `before_forward` replays state (a dropout mask) before each Forward.
void ExpectGpuGradientsMatchFiniteDifferences(Layer& layer, const Tensor& input,
                                              const std::function<void()>& before_forward = {}) {
  constexpr float kStep = 1e-2f;
  const Shape out_shape = *layer.OutputShape(input.shape());
  const Tensor r = RandomTensor(out_shape, 77);
  const std::vector<float> r_host = Host(r);
  Tensor y = *Tensor::Zeros(out_shape, Device::kCuda);
  auto loss = [&](const Tensor& x_host) {
    if (before_forward) before_forward();
    layer.Forward(OnGpu(x_host), true, &y);
    const std::vector<float> out = Host(y);
    double sum = 0;
    for (size_t i = 0; i < out.size(); ++i) sum += static_cast<double>(out[i]) * r_host[i];
    return sum;
  };
  auto expect_close = [](const std::string& what, size_t i, double analytic, double numeric) {
    EXPECT_LE(std::abs(analytic - numeric), 1e-3 + 1e-2 * std::abs(numeric))
        << what << "[" << i << "]: analytic " << analytic << ", numeric " << numeric;
  };
  if (before_forward) before_forward();
  const Tensor x_gpu = OnGpu(input);
  layer.Forward(x_gpu, true, &y);
  Tensor dx = *Tensor::Zeros(input.shape(), Device::kCuda);
  layer.Backward(x_gpu, y, OnGpu(r), &dx);
  const std::vector<float> input_grad = Host(dx);
  std::vector<std::vector<float>> parameter_grads;
  for (const Parameter* p : layer.parameters()) parameter_grads.push_back(Host(p->grad));

  Tensor probe = input;
  for (size_t i = 0; i < input_grad.size(); ++i) {
    const float saved = probe.data()[i];
    probe.data()[i] = saved + kStep;
    const double plus = loss(probe);
    probe.data()[i] = saved - kStep;
    const double minus = loss(probe);
    probe.data()[i] = saved;
    expect_close("input", i, input_grad[i], (plus - minus) / (2.0 * kStep));
  }
  for (size_t k = 0; k < layer.parameters().size(); ++k) {
    Parameter& p = *layer.parameters()[k];
    std::vector<float> values = Host(p.value);
    for (size_t i = 0; i < values.size(); ++i) {
      const float saved = values[i];
      values[i] = saved + kStep;
      p.value.CopyFromHost(values);
      const double plus = loss(input);
      values[i] = saved - kStep;
      p.value.CopyFromHost(values);
      const double minus = loss(input);
      values[i] = saved;
      p.value.CopyFromHost(values);
      expect_close(p.name, i, parameter_grads[k][i], (plus - minus) / (2.0 * kStep));
    }
  }
}

template <typename L>
std::unique_ptr<L> OnGpuInitialized(std::unique_ptr<L> layer) {
  Rng rng(3);
  layer->InitializeParameters(rng);
  EXPECT_TRUE(layer->MoveParametersTo(Device::kCuda).ok());
  return layer;
}

TEST(NnCudaTest, GradientsMatchFiniteDifferencesOnTheGpu) {
  SKIP_WITHOUT_GPU();
  auto dense = OnGpuInitialized(*Dense::Create(4, 3));
  ExpectGpuGradientsMatchFiniteDifferences(*dense, RandomTensor({5, 4}, 3));
  Conv2DOptions same;
  same.padding = Padding::kSame;
  same.stride_height = 2;
  auto conv = OnGpuInitialized(*Conv2D::Create(2, 3, 3, 3, same));
  ExpectGpuGradientsMatchFiniteDifferences(*conv, RandomTensor({2, 5, 4, 2}, 4));
  MaxPool2DOptions overlapping;
  overlapping.stride_height = 1;
  overlapping.stride_width = 1;
  auto pool = OnGpuInitialized(*MaxPool2D::Create(2, 2, overlapping));
  ExpectGpuGradientsMatchFiniteDifferences(*pool, testing::DistinctTensor({2, 4, 3, 2}, 5));
  GlobalAveragePooling2D average;
  ExpectGpuGradientsMatchFiniteDifferences(average, RandomTensor({2, 3, 3, 2}, 6));
  ReLU relu;
  ExpectGpuGradientsMatchFiniteDifferences(relu, RandomTensor({3, 5}, 7));  // |x| >= 0.1
  auto dropout = *Dropout::Create(0.4f);
  Dropout& d = *dropout;
  ExpectGpuGradientsMatchFiniteDifferences(d, RandomTensor({3, 5}, 8), [&d] { d.Reseed(5); });
}

TEST(NnCudaTest, TensorRoundTripsThroughTheGpu) {
  SKIP_WITHOUT_GPU();
  const Tensor x = RandomTensor({3, 5}, 1);
  Tensor gpu = OnGpu(x);
  EXPECT_EQ(gpu.device(), Device::kCuda);
  Tensor copy = gpu;  // a device-to-device copy
  gpu.Fill(2.0f);
  EXPECT_EQ(Host(copy), Host(x));
  EXPECT_EQ(Host(gpu), std::vector<float>(15, 2.0f));
  gpu.Resize({2, 2});
  EXPECT_EQ(gpu.num_elements(), 4);
  absl::StatusOr<Tensor> back = copy.To(Device::kCpu);
  ASSERT_TRUE(back.ok());
  EXPECT_EQ(std::vector<float>(back->values().begin(), back->values().end()), Host(x));
}

TEST(NnCudaTest, Dense) {
  SKIP_WITHOUT_GPU();
  ExpectGpuMatchesCpu([] { return *Dense::Create(6, 5); }, {4, 6});
  ExpectGpuMatchesCpu([] { return *Dense::Create(6, 5, {.name = "", .use_bias = false}); }, {3, 6});
}

TEST(NnCudaTest, Conv2D) {
  SKIP_WITHOUT_GPU();
  ExpectGpuMatchesCpu([] { return *Conv2D::Create(3, 4, 3, 3); }, {2, 6, 5, 3});
  Conv2DOptions same;
  same.stride_height = 2;
  same.stride_width = 2;
  same.padding = Padding::kSame;
  ExpectGpuMatchesCpu([same] { return *Conv2D::Create(2, 3, 3, 2, same); }, {2, 7, 6, 2});
}

TEST(NnCudaTest, Pooling) {
  SKIP_WITHOUT_GPU();
  ExpectGpuMatchesCpu([] { return *MaxPool2D::Create(2, 2); }, {2, 6, 4, 3});
  MaxPool2DOptions overlapping;
  overlapping.stride_height = 1;
  overlapping.stride_width = 1;
  overlapping.padding = Padding::kSame;
  ExpectGpuMatchesCpu([overlapping] { return *MaxPool2D::Create(3, 3, overlapping); },
                      {2, 5, 4, 2});
  ExpectGpuMatchesCpu([] { return std::make_unique<GlobalAveragePooling2D>(); }, {3, 4, 5, 2});
}

TEST(NnCudaTest, ElementwiseLayers) {
  SKIP_WITHOUT_GPU();
  ExpectGpuMatchesCpu([] { return std::make_unique<ReLU>(); }, {4, 7});
  ExpectGpuMatchesCpu([] { return std::make_unique<Flatten>(); }, {2, 3, 2, 2});
  // The same seed draws the same mask on either device.
  ExpectGpuMatchesCpu([] { return *Dropout::Create(0.4f, {.name = "", .seed = 3}); }, {5, 8});
  ExpectGpuMatchesCpu([] { return *Dropout::Create(0.4f); }, {5, 8}, /*training=*/false);
}

TEST(NnCudaTest, Losses) {
  SKIP_WITHOUT_GPU();
  const Tensor logits = RandomTensor({6, 4}, 8, 0.1f, 4.0f);
  const std::vector<int32_t> labels = {0, 3, 2, 1, 1, 3};
  Tensor grad, grad_gpu;
  auto loss = SparseSoftmaxCrossEntropy(logits, labels, &grad);
  auto loss_gpu = SparseSoftmaxCrossEntropy(OnGpu(logits), labels, &grad_gpu);
  ASSERT_TRUE(loss.ok() && loss_gpu.ok());
  EXPECT_NEAR(*loss, *loss_gpu, 1e-6);
  ExpectNear(grad, grad_gpu, "softmax cross-entropy gradient");

  const std::vector<float> targets = {0, 1, 1, 0, 0.5f, 1, 0, 0, 1, 1, 0, 1,
                                      0, 1, 1, 0, 0.5f, 1, 0, 0, 1, 1, 0, 1};
  auto bce = BinaryCrossEntropy(logits, targets, &grad);
  auto bce_gpu = BinaryCrossEntropy(OnGpu(logits), targets, &grad_gpu);
  ASSERT_TRUE(bce.ok() && bce_gpu.ok());
  EXPECT_NEAR(*bce, *bce_gpu, 1e-6);
  ExpectNear(grad, grad_gpu, "binary cross-entropy gradient");

  SparseCategoricalAccuracy accuracy, accuracy_gpu;
  ASSERT_TRUE(accuracy.Update(logits, labels).ok());
  ASSERT_TRUE(accuracy_gpu.Update(OnGpu(logits), labels).ok());
  EXPECT_EQ(accuracy.Result(), accuracy_gpu.Result());
}

// Three steps of `optimizer` on a CPU parameter and of `twin` on its GPU
// copy, with the same gradients: same values and same state.
void ExpectSameSteps(Optimizer& optimizer, Optimizer& twin) {
  Parameter cpu("w", {3, 4});
  cpu.value = RandomTensor({3, 4}, 1);
  Parameter gpu("w", {3, 4});
  gpu.value = OnGpu(cpu.value);
  gpu.grad = *Tensor::Zeros({3, 4}, Device::kCuda);
  for (int step = 0; step < 3; ++step) {
    cpu.grad = RandomTensor({3, 4}, 20 + step);
    gpu.grad.CopyFromHost(cpu.grad.values());
    Parameter* a[] = {&cpu};
    Parameter* b[] = {&gpu};
    ASSERT_TRUE(optimizer.Apply(a).ok());
    ASSERT_TRUE(twin.Apply(b).ok());
  }
  ExpectNear(cpu.value, gpu.value, "updated value");
  ASSERT_EQ(optimizer.state().size(), twin.state().size());
  for (size_t i = 0; i < optimizer.state().size(); ++i) {
    ASSERT_EQ(optimizer.state()[i].size(), twin.state()[i].size());
    for (size_t k = 0; k < optimizer.state()[i].size(); ++k) {
      EXPECT_NEAR(optimizer.state()[i][k], twin.state()[i][k], 1e-5) << k;
    }
  }
}

TEST(NnCudaTest, Optimizers) {
  SKIP_WITHOUT_GPU();
  const SgdOptions sgd{.learning_rate = 0.1f, .momentum = 0.9f, .nesterov = true};
  ExpectSameSteps(**Sgd::Create(sgd), **Sgd::Create(sgd));
  ExpectSameSteps(**Adam::Create({.learning_rate = 0.01f}),
                  **Adam::Create({.learning_rate = 0.01f}));
  ExpectSameSteps(**Adagrad::Create(), **Adagrad::Create());
}

Sequential SmallCnn() {
  Sequential model;
  EXPECT_TRUE(model.Add(Conv2D::Create(1, 4, 3, 3)).ok());
  EXPECT_TRUE(model.Add(std::make_unique<ReLU>()).ok());
  EXPECT_TRUE(model.Add(MaxPool2D::Create(2, 2)).ok());
  EXPECT_TRUE(model.Add(std::make_unique<Flatten>()).ok());
  EXPECT_TRUE(model.Add(Dropout::Create(0.2f, {.name = "", .seed = 4})).ok());
  EXPECT_TRUE(model.Add(Dense::Create(3 * 3 * 4, 5)).ok());
  model.InitializeParameters(9);
  return model;
}

TEST(NnCudaTest, ModelTrainsTheSameOnBothDevices) {
  SKIP_WITHOUT_GPU();
  Sequential cpu = SmallCnn();
  Sequential gpu = SmallCnn();
  ASSERT_TRUE(gpu.MoveTo(Device::kCuda).ok());
  EXPECT_EQ(gpu.device(), Device::kCuda);
  auto adam_cpu = Adam::Create({.learning_rate = 0.01f});
  auto adam_gpu = Adam::Create({.learning_rate = 0.01f});
  const std::vector<int32_t> labels = {0, 1, 2, 3, 4, 0, 1, 2};
  float last_cpu = 0, last_gpu = 0;
  for (int step = 0; step < 5; ++step) {
    const Tensor batch = RandomTensor({8, 8, 8, 1}, 100 + step);
    const Tensor* out_cpu = *cpu.Forward(batch, true);
    const Tensor* out_gpu = *gpu.Forward(batch, true);  // a host batch is copied over
    Tensor grad_cpu, grad_gpu;
    last_cpu = *SparseSoftmaxCrossEntropy(*out_cpu, labels, &grad_cpu);
    last_gpu = *SparseSoftmaxCrossEntropy(*out_gpu, labels, &grad_gpu);
    ASSERT_TRUE(cpu.Backward(grad_cpu).ok());
    ASSERT_TRUE(gpu.Backward(grad_gpu).ok());
    ASSERT_TRUE((*adam_cpu)->Apply(cpu.parameters()).ok());
    ASSERT_TRUE((*adam_gpu)->Apply(gpu.parameters()).ok());
  }
  EXPECT_NEAR(last_cpu, last_gpu, 1e-4);
  for (size_t i = 0; i < cpu.parameters().size(); ++i) {
    ExpectNear(cpu.parameters()[i]->value, gpu.parameters()[i]->value, cpu.parameters()[i]->name);
  }
  Tensor host_grad({8, 5});  // the right shape on the wrong device
  EXPECT_EQ(gpu.Backward(host_grad).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainpkg::nn
