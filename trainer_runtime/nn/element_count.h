// Element counts of shapes that come from outside (files, peers), where
// NumElements' product could overflow: checked against a limit without
// ever computing a product beyond it.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_ELEMENT_COUNT_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_ELEMENT_COUNT_H_

#include <cstdint>
#include <optional>

#include "trainer_runtime/nn/shape.h"

namespace trainpkg::nn {

// The product of the dimensions (1 for a rank-0 shape) when every one is
// >= 0 and the product is at most `limit`; nullopt otherwise (a negative
// dimension or limit, or a product that is larger or would overflow).
std::optional<int64_t> NumElementsAtMost(const Shape& shape, int64_t limit);

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_ELEMENT_COUNT_H_
