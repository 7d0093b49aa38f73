// How gradients are grouped for the allreduce, as PyTorch DDP's reducer does
// (reducer.cpp compute_bucket_assignment_by_size): parameters are taken in
// REVERSE registration order, the order Backward finishes their gradients,
// and appended to the current bucket; a bucket closes once it holds at least
// its limit: first_bucket_bytes for the first bucket (so the first allreduce
// starts early in backward), bucket_cap_bytes for the others. A parameter
// larger than the limit gets a bucket of its own; nothing is split.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_BUCKET_PLAN_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_BUCKET_PLAN_H_

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace trainpkg::train {

struct BucketOptions {
  int64_t first_bucket_bytes = int64_t{1} << 20;  // DDP's kDefaultFirstBucketBytes
  int64_t bucket_cap_bytes = int64_t{25} << 20;   // DDP's bucket_cap_mb = 25
};

struct Bucket {
  // Registration indices of the bucket's parameters, in the order their
  // gradients become ready (decreasing).
  std::vector<size_t> parameters;
  // Floats in the bucket: the sum of its parameters' sizes.
  int64_t num_elements = 0;
};

// The buckets for parameters of `num_elements[i]` floats (registration
// order), in the order their allreduces are issued. Every parameter is in
// exactly one bucket. REQUIRES: both limits > 0.
std::vector<Bucket> PlanBuckets(std::span<const int64_t> num_elements,
                                const BucketOptions& options);

}  // namespace trainpkg::train

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_BUCKET_PLAN_H_
