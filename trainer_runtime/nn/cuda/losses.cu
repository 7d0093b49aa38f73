#include <vector>

#include "trainer_runtime/nn/cuda/device_array.h"
#include "trainer_runtime/nn/cuda/internal/launch.cuh"
#include "trainer_runtime/nn/cuda/losses.h"

namespace trainpkg::nn::cuda {
namespace {

using internal::FirstIndex;
using internal::Stride;

// One thread per row (class counts are small); the row's loss in double.
__global__ void SparseSoftmaxCrossEntropyKernel(int64_t rows, int64_t classes, const float* logits,
                                                const int32_t* labels, float scale, float* grad,
                                                double* row_loss) {
  for (int64_t r = FirstIndex(); r < rows; r += Stride()) {
    const float* x = logits + r * classes;
    float max = x[0];
    for (int64_t c = 1; c < classes; ++c) max = fmaxf(max, x[c]);
    double sum = 0.0;
    for (int64_t c = 0; c < classes; ++c) sum += exp(static_cast<double>(x[c] - max));
    row_loss[r] = log(sum) - static_cast<double>(x[labels[r]] - max);
    if (grad != nullptr) {
      float* g = grad + r * classes;
      const double inverse_sum = 1.0 / sum;
      for (int64_t c = 0; c < classes; ++c) {
        g[c] = static_cast<float>(exp(static_cast<double>(x[c] - max)) * inverse_sum) * scale;
      }
      g[labels[r]] -= scale;
    }
  }
}

__global__ void BinaryCrossEntropyKernel(int64_t n, const float* logits, const float* targets,
                                         float scale, float* grad, double* loss) {
  for (int64_t i = FirstIndex(); i < n; i += Stride()) {
    const double x = logits[i];
    const double z = targets[i];
    loss[i] = fmax(x, 0.0) - x * z + log1p(exp(-fabs(x)));
    if (grad != nullptr) {
      const double sigmoid = x >= 0 ? 1.0 / (1.0 + exp(-x)) : exp(x) / (1.0 + exp(x));
      grad[i] = static_cast<float>((sigmoid - z) * scale);
    }
  }
}

// The per-item losses summed on the host in index order, as the CPU sums.
double SumOnHost(const double* device_values, int64_t n) {
  std::vector<double> values(static_cast<size_t>(n));
  Copy(values.data(), device_values, values.size() * sizeof(double));
  double total = 0.0;
  for (double v : values) total += v;
  return total;
}

}  // namespace

double SparseSoftmaxCrossEntropy(int64_t rows, int64_t classes, const float* logits,
                                 const int32_t* labels, float scale, float* grad) {
  if (rows == 0) return 0.0;
  DeviceArray<double> row_loss;
  SparseSoftmaxCrossEntropyKernel<<<internal::Blocks(rows), internal::kThreads>>>(
      rows, classes, logits, labels, scale, grad, row_loss.Reserve(rows));
  internal::CheckLaunch("SparseSoftmaxCrossEntropy");
  return SumOnHost(row_loss.data(), rows);
}

double BinaryCrossEntropyFromLogits(int64_t n, const float* logits, const float* targets,
                                    float scale, float* grad) {
  if (n == 0) return 0.0;
  DeviceArray<double> loss;
  BinaryCrossEntropyKernel<<<internal::Blocks(n), internal::kThreads>>>(n, logits, targets, scale,
                                                                        grad, loss.Reserve(n));
  internal::CheckLaunch("BinaryCrossEntropyFromLogits");
  return SumOnHost(loss.data(), n);
}

}  // namespace trainpkg::nn::cuda
