#include "trainer_runtime/data/dataset.h"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <utility>

#include "fmt/format.h"
#include "trainer_runtime/data/shuffle.h"
#include "trainer_runtime/nn/element_count.h"

namespace trainpkg::data {

Dataset::Dataset(nn::Shape element_shape, int64_t element_size, std::vector<float> features,
                 std::vector<int32_t> labels)
    : element_shape_(std::move(element_shape)),
      element_size_(element_size),
      features_(std::move(features)),
      labels_(std::move(labels)) {}

absl::StatusOr<Dataset> Dataset::Create(nn::Shape element_shape, std::vector<float> features,
                                        std::vector<int32_t> labels) {
  for (int64_t d : element_shape) {
    if (d < 0) {
      return absl::InvalidArgumentError(fmt::format("element shape {} has a negative dimension",
                                                    nn::ShapeToString(element_shape)));
    }
  }
  const auto n = static_cast<int64_t>(labels.size());
  const auto have = static_cast<int64_t>(features.size());
  // n * element size must equal the feature count; checked by division so
  // that a huge shape cannot wrap the product into agreement.
  const std::optional<int64_t> element_size =
      nn::NumElementsAtMost(element_shape, n == 0 ? INT64_MAX : have / n);
  if (!element_size.has_value() || n * *element_size != have) {
    return absl::InvalidArgumentError(fmt::format(
        "{} labels of element shape {} need {} feature values, got {}", n,
        nn::ShapeToString(element_shape),
        element_size.has_value() ? fmt::format("{}", n * *element_size) : "more", have));
  }
  for (int64_t i = 0; i < n; ++i) {
    if (labels[i] < 0) {
      return absl::InvalidArgumentError(
          fmt::format("label of element {} is {}; class labels must be >= 0", i, labels[i]));
    }
  }
  return Dataset(std::move(element_shape), *element_size, std::move(features), std::move(labels));
}

std::span<const float> Dataset::element(int64_t i) const {
  if (i < 0 || i >= size()) {
    fmt::print(stderr, "Dataset::element({}) out of range [0, {})\n", i, size());
    std::abort();
  }
  return std::span<const float>(features_).subspan(i * element_size_, element_size_);
}

Dataset Dataset::Take(std::span<const int64_t> indices) const {
  std::vector<float> features(indices.size() * element_size_);
  std::vector<int32_t> labels(indices.size());
  for (size_t k = 0; k < indices.size(); ++k) {
    const std::span<const float> src = element(indices[k]);
    std::memcpy(features.data() + k * element_size_, src.data(), src.size_bytes());
    labels[k] = labels_[indices[k]];
  }
  return Dataset(element_shape_, element_size_, std::move(features), std::move(labels));
}

Dataset Dataset::Shard(int64_t index, int64_t num_shards) const {
  if (num_shards < 1 || index < 0 || index >= num_shards) {
    fmt::print(stderr, "Dataset::Shard({}, {}): need 0 <= index < num_shards\n", index, num_shards);
    std::abort();
  }
  std::vector<int64_t> indices;
  for (int64_t i = index; i < size(); i += num_shards) indices.push_back(i);
  return Take(indices);
}

void Dataset::ScaleFeatures(float factor) {
  for (float& v : features_) v *= factor;
}

absl::StatusOr<TrainTestSplit> SplitTrainTest(const Dataset& dataset, double test_fraction,
                                              uint64_t seed) {
  if (!(test_fraction > 0.0 && test_fraction < 1.0)) {
    return absl::InvalidArgumentError(
        fmt::format("test fraction {} is not in (0, 1)", test_fraction));
  }
  const int64_t n = dataset.size();
  const auto n_test = static_cast<int64_t>(std::ceil(test_fraction * static_cast<double>(n)));
  if (n_test < 1 || n_test >= n) {
    return absl::InvalidArgumentError(fmt::format(
        "test fraction {} of {} elements leaves an empty train or test set", test_fraction, n));
  }
  const std::vector<int64_t> order = ShuffledIndices(n, seed);
  const std::span<const int64_t> all(order);
  return TrainTestSplit{.train = dataset.Take(all.subspan(n_test)),
                        .test = dataset.Take(all.first(n_test))};
}

}  // namespace trainpkg::data
