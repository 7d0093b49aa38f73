#include "trainer_runtime/collectives/internal/shm_reduce.h"

namespace trainpkg::collectives::internal {
namespace {

// Loops for the vectorizer (this file is built with -O3; collectives/CMakeLists.txt).
template <typename T>
void Add2(const T* __restrict a, const T* __restrict b, size_t n, T* __restrict out) {
  for (size_t i = 0; i < n; ++i) out[i] = a[i] + b[i];
}

template <typename T>
void AddInto(const T* __restrict a, size_t n, T* __restrict out) {
  for (size_t i = 0; i < n; ++i) out[i] += a[i];
}

template <typename T>
void Sum(std::span<const T* const> sources, size_t n, T* out) {
  if (sources.size() == 1) {
    for (size_t i = 0; i < n; ++i) out[i] = sources[0][i];
    return;
  }
  // In blocks that stay in L1 between the passes over the sources.
  constexpr size_t kBlock = 2048;
  for (size_t begin = 0; begin < n; begin += kBlock) {
    const size_t length = n - begin < kBlock ? n - begin : kBlock;
    Add2(sources[0] + begin, sources[1] + begin, length, out + begin);
    for (size_t q = 2; q < sources.size(); ++q) AddInto(sources[q] + begin, length, out + begin);
  }
}

}  // namespace

void SumInRankOrder(std::span<const float* const> sources, size_t n, float* out) {
  Sum(sources, n, out);
}

void SumInRankOrder(std::span<const double* const> sources, size_t n, double* out) {
  Sum(sources, n, out);
}

}  // namespace trainpkg::collectives::internal
