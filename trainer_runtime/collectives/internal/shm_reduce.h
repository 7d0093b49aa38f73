// The shared-memory allreduce's arithmetic: one slice summed over the ranks.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SHM_REDUCE_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SHM_REDUCE_H_

#include <cstddef>
#include <span>

namespace trainpkg::collectives::internal {

// out[i] = ((sources[0][i] + sources[1][i]) + sources[2][i]) + ..., in that
// order whoever computes it, so every rank's result is bit-identical; NaN
// and infinities propagate as IEEE addition does. `out` may not alias a
// source.
void SumInRankOrder(std::span<const float* const> sources, size_t n, float* out);
void SumInRankOrder(std::span<const double* const> sources, size_t n, double* out);

}  // namespace trainpkg::collectives::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_SHM_REDUCE_H_
