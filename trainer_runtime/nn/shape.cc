#include "trainer_runtime/nn/shape.h"

#include "base/check.h"
#include "fmt/format.h"
#include "fmt/ranges.h"

namespace trainpkg::nn {

int64_t NumElements(const Shape& shape) {
  int64_t n = 1;
  for (int64_t d : shape) {
    TP_CHECK(d >= 0, "negative dimension in shape {}", ShapeToString(shape));
    n *= d;
  }
  return n;
}

std::string ShapeToString(const Shape& shape) {
  return fmt::format("[{}]", fmt::join(shape, ", "));
}

}  // namespace trainpkg::nn
