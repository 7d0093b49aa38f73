#include "trainer_runtime/nn/element_count.h"

namespace trainpkg::nn {

std::optional<int64_t> NumElementsAtMost(const Shape& shape, int64_t limit) {
  if (limit < 0) return std::nullopt;
  bool empty = false;
  for (int64_t d : shape) {
    if (d < 0) return std::nullopt;
    empty = empty || d == 0;
  }
  if (empty) return 0;
  if (limit < 1) return std::nullopt;  // even a rank-0 shape has one element
  int64_t n = 1;
  for (int64_t d : shape) {
    if (n > limit / d) return std::nullopt;  // n * d > limit, without computing it
    n *= d;
  }
  return n;
}

}  // namespace trainpkg::nn
