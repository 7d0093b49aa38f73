// A tensor's dimensions, outermost first (the batch dimension is dimension 0
// for every layer input). Row-major: the last dimension varies fastest.
#ifndef TRAINPKG_TRAINER_RUNTIME_NN_SHAPE_H_
#define TRAINPKG_TRAINER_RUNTIME_NN_SHAPE_H_

#include <cstdint>
#include <string>
#include <vector>

namespace trainpkg::nn {

using Shape = std::vector<int64_t>;

// The product of the dimensions (1 for a rank-0 shape).
// REQUIRES: every dimension is >= 0.
int64_t NumElements(const Shape& shape);

// "[64, 8, 8, 1]", for error messages.
std::string ShapeToString(const Shape& shape);

}  // namespace trainpkg::nn

#endif  // TRAINPKG_TRAINER_RUNTIME_NN_SHAPE_H_
