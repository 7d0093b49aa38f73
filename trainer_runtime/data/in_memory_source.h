// An ElementSource over a Dataset in memory: `epochs` passes over it, each in
// dataset order or, with shuffle, in the order ShuffledIndices(size,
// EpochSeed(seed, epoch)) — the same on every machine for the same seed.
//
//   auto source = std::make_unique<InMemorySource>(
//       train, InMemorySource::Options{.shuffle = true, .seed = 42, .epochs = 1});
//
// Shares ownership of the Dataset (it is never modified). Not thread-safe.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_IN_MEMORY_SOURCE_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_IN_MEMORY_SOURCE_H_

#include <cstdint>
#include <memory>
#include <vector>

#include "trainer_runtime/data/dataset.h"
#include "trainer_runtime/data/element_source.h"

namespace trainpkg::data {

class InMemorySource final : public ElementSource {
 public:
  struct Options {
    bool shuffle = false;
    uint64_t seed = 0;
    int64_t epochs = 1;       // passes over the data; -1 repeats forever
    int64_t first_epoch = 0;  // number of the first pass (its shuffle seed); epochs
                              // first_epoch .. first_epoch + epochs - 1 are read, so
                              // a fit loop can make one source per epoch or resume
  };

  // REQUIRES: dataset != nullptr, options.epochs >= -1, options.first_epoch >= 0.
  InMemorySource(std::shared_ptr<const Dataset> dataset, Options options);

  const nn::Shape& element_shape() const override { return dataset_->element_shape(); }
  absl::StatusOr<int64_t> Read(int64_t max_elements, float* features, int32_t* labels) override;

  // The epoch the next element comes from (0-based).
  int64_t epoch() const { return epoch_; }

 private:
  void StartEpoch();

  std::shared_ptr<const Dataset> dataset_;
  Options options_;
  int64_t epoch_ = 0;
  int64_t position_ = 0;        // next element within the epoch
  std::vector<int64_t> order_;  // this epoch's permutation (shuffle only)
};

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_IN_MEMORY_SOURCE_H_
