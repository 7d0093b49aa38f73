// Variable partitioners, TensorFlow's tf.distribute.experimental.partitioners:
// a large variable is split along its first axis into shards, each a
// separate variable placed on a parameter server.
//
// Semantics implemented (shape [d0, d1, ...], B bytes per element, total
// bytes T = B * d0 * d1 * ...; a rank-0 variable is never split):
//   FixedShards(n)               min(n, d0) shards.
//   MinSize(min_bytes, max)      max(1, min(max, d0, T / min_bytes)) shards:
//                                as many as possible while each holds at
//                                least min_bytes (TF's defaults 256 KiB, 1).
//   MaxSize(max_bytes, max)      rows per shard r = max(1, max_bytes / (B *
//                                d1 * ...)); ceil(d0 / r) shards, at most
//                                max when max > 0: each shard at most
//                                max_bytes unless one row is larger (or the
//                                cap `max` forces more rows per shard).
// Rows are dealt as numpy.array_split does (TF's convention): the first
// d0 % n shards get one row more than the others.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_PARTITIONER_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_PARTITIONER_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::ps {

class Partitioner {
 public:
  virtual ~Partitioner() = default;
  // The number of shards along axis 0 for a variable of `shape` with
  // `bytes_per_element`-byte elements; 1 for rank 0 or d0 == 0.
  // REQUIRES: bytes_per_element >= 1, every dimension >= 0.
  virtual int64_t NumShards(const nn::Shape& shape, int64_t bytes_per_element) const = 0;
};

// InvalidArgument for num_shards < 1.
absl::StatusOr<std::unique_ptr<Partitioner>> FixedShardsPartitioner(int64_t num_shards);
// InvalidArgument for min_shard_bytes < 1 or max_shards < 1.
absl::StatusOr<std::unique_ptr<Partitioner>> MinSizePartitioner(int64_t min_shard_bytes = 256 << 10,
                                                                int64_t max_shards = 1);
// max_shards 0 means no cap. InvalidArgument for max_shard_bytes < 1 or
// max_shards < 0.
absl::StatusOr<std::unique_ptr<Partitioner>> MaxSizePartitioner(int64_t max_shard_bytes,
                                                                int64_t max_shards = 0);

// The number of rows of each of `num_shards` shards of `rows` rows
// (array_split). REQUIRES: 1 <= num_shards, rows >= 0.
std::vector<int64_t> ShardRows(int64_t rows, int64_t num_shards);

}  // namespace trainpkg::ps

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_PARTITIONER_H_
