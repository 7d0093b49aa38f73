#include "trainer_runtime/data/shuffle.h"

#include <cstdio>
#include <cstdlib>
#include <numeric>
#include <utility>

namespace trainpkg::data {

uint64_t UniformBelow(nn::Rng& rng, uint64_t n) {
  if (n == 0) {
    std::fputs("UniformBelow: n must be >= 1\n", stderr);
    std::abort();
  }
  // 2^64 mod n, computed in 64 bits as (2^64 - n) mod n.
  const uint64_t excess = (0 - n) % n;
  const uint64_t limit = 0 - excess;  // 2^64 - excess; 0 means "no rejection"
  while (true) {
    const uint64_t r = rng.Next();
    if (excess == 0 || r < limit) return r % n;
  }
}

void ShuffleInPlace(std::span<int64_t> values, uint64_t seed) {
  nn::Rng rng(seed);
  for (size_t i = values.size(); i > 1; --i) {
    const uint64_t j = UniformBelow(rng, i);
    std::swap(values[i - 1], values[j]);
  }
}

std::vector<int64_t> ShuffledIndices(int64_t n, uint64_t seed) {
  std::vector<int64_t> order(static_cast<size_t>(n));
  std::iota(order.begin(), order.end(), int64_t{0});
  ShuffleInPlace(order, seed);
  return order;
}

uint64_t EpochSeed(uint64_t seed, int64_t epoch) {
  return seed + 0x9E3779B97F4A7C15ull * (static_cast<uint64_t>(epoch) + 1);
}

}  // namespace trainpkg::data
