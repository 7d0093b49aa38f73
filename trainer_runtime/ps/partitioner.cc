#include "trainer_runtime/ps/partitioner.h"

#include <algorithm>

#include "base/check.h"
#include "fmt/format.h"

namespace trainpkg::ps {
namespace {

int64_t RowElements(const nn::Shape& shape) {
  int64_t n = 1;
  for (size_t i = 1; i < shape.size(); ++i) n *= shape[i];
  return n;
}

bool Splittable(const nn::Shape& shape) { return !shape.empty() && shape[0] > 0; }

class FixedShards final : public Partitioner {
 public:
  explicit FixedShards(int64_t n) : n_(n) {}
  int64_t NumShards(const nn::Shape& shape, int64_t) const override {
    if (!Splittable(shape)) return 1;
    return std::min(n_, shape[0]);
  }

 private:
  int64_t n_;
};

class MinSize final : public Partitioner {
 public:
  MinSize(int64_t min_bytes, int64_t max_shards) : min_bytes_(min_bytes), max_shards_(max_shards) {}
  int64_t NumShards(const nn::Shape& shape, int64_t bytes_per_element) const override {
    TP_CHECK(bytes_per_element >= 1, "bytes per element {}", bytes_per_element);
    if (!Splittable(shape)) return 1;
    const int64_t total = bytes_per_element * shape[0] * RowElements(shape);
    return std::max<int64_t>(1, std::min({max_shards_, shape[0], total / min_bytes_}));
  }

 private:
  int64_t min_bytes_;
  int64_t max_shards_;
};

class MaxSize final : public Partitioner {
 public:
  MaxSize(int64_t max_bytes, int64_t max_shards) : max_bytes_(max_bytes), max_shards_(max_shards) {}
  int64_t NumShards(const nn::Shape& shape, int64_t bytes_per_element) const override {
    TP_CHECK(bytes_per_element >= 1, "bytes per element {}", bytes_per_element);
    if (!Splittable(shape)) return 1;
    const int64_t row_bytes = std::max<int64_t>(1, bytes_per_element * RowElements(shape));
    const int64_t rows_per_shard = std::max<int64_t>(1, max_bytes_ / row_bytes);
    int64_t shards = (shape[0] + rows_per_shard - 1) / rows_per_shard;
    if (max_shards_ > 0) shards = std::min(shards, max_shards_);
    return shards;
  }

 private:
  int64_t max_bytes_;
  int64_t max_shards_;
};

}  // namespace

absl::StatusOr<std::unique_ptr<Partitioner>> FixedShardsPartitioner(int64_t num_shards) {
  if (num_shards < 1) {
    return absl::InvalidArgumentError(
        fmt::format("FixedShardsPartitioner: num_shards is {}; must be >= 1", num_shards));
  }
  return std::make_unique<FixedShards>(num_shards);
}

absl::StatusOr<std::unique_ptr<Partitioner>> MinSizePartitioner(int64_t min_shard_bytes,
                                                                int64_t max_shards) {
  if (min_shard_bytes < 1 || max_shards < 1) {
    return absl::InvalidArgumentError(
        fmt::format("MinSizePartitioner: min_shard_bytes {} and max_shards {}; both must be >= 1",
                    min_shard_bytes, max_shards));
  }
  return std::make_unique<MinSize>(min_shard_bytes, max_shards);
}

absl::StatusOr<std::unique_ptr<Partitioner>> MaxSizePartitioner(int64_t max_shard_bytes,
                                                                int64_t max_shards) {
  if (max_shard_bytes < 1 || max_shards < 0) {
    return absl::InvalidArgumentError(fmt::format(
        "MaxSizePartitioner: max_shard_bytes {} (must be >= 1), max_shards {} (must be >= 0)",
        max_shard_bytes, max_shards));
  }
  return std::make_unique<MaxSize>(max_shard_bytes, max_shards);
}

std::vector<int64_t> ShardRows(int64_t rows, int64_t num_shards) {
  TP_CHECK(num_shards >= 1 && rows >= 0, "{} rows in {} shards", rows, num_shards);
  std::vector<int64_t> out(static_cast<size_t>(num_shards), rows / num_shards);
  for (int64_t i = 0; i < rows % num_shards; ++i) ++out[static_cast<size_t>(i)];
  return out;
}

}  // namespace trainpkg::ps
