#include "trainer_runtime/train/bucket_plan.h"

#include <utility>

#include "base/check.h"

namespace trainpkg::train {

std::vector<Bucket> PlanBuckets(std::span<const int64_t> num_elements,
                                const BucketOptions& options) {
  TP_CHECK(options.first_bucket_bytes > 0 && options.bucket_cap_bytes > 0,
           "bucket limits first {} cap {}", options.first_bucket_bytes, options.bucket_cap_bytes);
  std::vector<Bucket> buckets;
  Bucket current;
  int64_t limit = options.first_bucket_bytes;
  for (size_t k = num_elements.size(); k-- > 0;) {
    current.parameters.push_back(k);
    current.num_elements += num_elements[k];
    if (current.num_elements * static_cast<int64_t>(sizeof(float)) >= limit) {
      buckets.push_back(std::move(current));
      current = Bucket{};
      limit = options.bucket_cap_bytes;
    }
  }
  if (!current.parameters.empty()) buckets.push_back(std::move(current));
  return buckets;
}

}  // namespace trainpkg::train
