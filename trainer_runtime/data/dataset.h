// An in-memory data set: N elements, each a float32 feature block of one
// element shape (e.g. [64] or [8, 8, 1]) and an int32 class label.
//
//   TP_ASSIGN_OR_RETURN(Dataset ds, Dataset::Create({64}, std::move(x), std::move(y)));
//   Dataset mine = ds.Shard(rank, world_size);       // elements i ≡ rank (mod world_size)
//   TP_ASSIGN_OR_RETURN(TrainTestSplit split, SplitTrainTest(ds, 0.2, /*seed=*/0));
//
// Features are stored contiguously, row-major, element after element, so a
// run of elements is one memcpy. A Dataset is a value (copying copies the
// data); const methods are safe to call from several threads.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_DATASET_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_DATASET_H_

#include <cstdint>
#include <span>
#include <vector>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::data {

class Dataset {
 public:
  // An empty data set of element shape [0].
  Dataset() : element_shape_{0} {}

  // InvalidArgument when a dimension of `element_shape` is negative,
  // features.size() is not labels.size() * NumElements(element_shape), or a
  // label is negative.
  static absl::StatusOr<Dataset> Create(nn::Shape element_shape, std::vector<float> features,
                                        std::vector<int32_t> labels);

  int64_t size() const { return static_cast<int64_t>(labels_.size()); }
  const nn::Shape& element_shape() const { return element_shape_; }
  // Floats per element: NumElements(element_shape()).
  int64_t element_size() const { return element_size_; }

  std::span<const float> features() const { return features_; }
  std::span<const int32_t> labels() const { return labels_; }
  // The features of element i. REQUIRES: 0 <= i < size().
  std::span<const float> element(int64_t i) const;

  // The elements at `indices`, in that order (repeats allowed).
  // REQUIRES: every index in [0, size()).
  Dataset Take(std::span<const int64_t> indices) const;

  // TF's DATA sharding of an in-memory data set: the elements whose index i
  // satisfies i % num_shards == index, in order.
  // REQUIRES: num_shards >= 1, 0 <= index < num_shards.
  Dataset Shard(int64_t index, int64_t num_shards) const;

  // Multiplies every feature by `factor` (e.g. 1/16 for 4-bit pixels).
  void ScaleFeatures(float factor);

 private:
  Dataset(nn::Shape element_shape, int64_t element_size, std::vector<float> features,
          std::vector<int32_t> labels);

  nn::Shape element_shape_;
  int64_t element_size_ = 0;
  std::vector<float> features_;
  std::vector<int32_t> labels_;
};

struct TrainTestSplit {
  Dataset train;
  Dataset test;
};

// Splits like scikit-learn's train_test_split(shuffle=True): the test set
// has ceil(test_fraction * size) elements, the train set the rest; which
// elements go where is the permutation ShuffledIndices(size, seed) (test =
// its first part, train = the rest), each part keeping that permuted order.
// InvalidArgument unless 0 < test_fraction < 1 and both parts are non-empty.
absl::StatusOr<TrainTestSplit> SplitTrainTest(const Dataset& dataset, double test_fraction,
                                              uint64_t seed);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_DATASET_H_
