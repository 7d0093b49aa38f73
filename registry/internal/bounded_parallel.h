// A bounded pool for blob transfers: at most `jobs` at a time, like
// go-containerregistry's errgroup.SetLimit(jobs).
#ifndef TRAINPKG_REGISTRY_INTERNAL_BOUNDED_PARALLEL_H_
#define TRAINPKG_REGISTRY_INTERNAL_BOUNDED_PARALLEL_H_

#include <cstddef>
#include <functional>

#include "absl/status/status.h"

namespace trainpkg::registry::internal {

// Runs task(i) for every i in [0, count) on at most `jobs` threads (the
// calling thread included) and waits for them. After the first failure no
// further task starts; the first failure (by index) is returned.
// REQUIRES: jobs >= 1.
absl::Status RunBounded(size_t count, int jobs, const std::function<absl::Status(size_t)>& task);

}  // namespace trainpkg::registry::internal

#endif  // TRAINPKG_REGISTRY_INTERNAL_BOUNDED_PARALLEL_H_
