// The streaming interface of the pipeline: something that hands out
// (features, label) elements of one element shape, in runs.
//
// Read is called once per batch, not once per element, so an implementation
// copies a run of elements per (virtual) call. Not thread-safe: one reader at
// a time (the Prefetcher calls it from its own thread only).
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_ELEMENT_SOURCE_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_ELEMENT_SOURCE_H_

#include <cstdint>

#include "absl/status/statusor.h"
#include "trainer_runtime/nn/shape.h"

namespace trainpkg::data {

class ElementSource {
 public:
  virtual ~ElementSource() = default;

  // The shape of one element's features. Fixed for the source's lifetime.
  virtual const nn::Shape& element_shape() const = 0;

  // Copies the next min(max_elements, remaining) elements: their features to
  // features[0, n * NumElements(element_shape())), their labels to
  // labels[0, n). Returns n; 0 only at the end of the stream (and on every
  // call after it). An error (a bad file) ends the stream.
  // REQUIRES: max_elements >= 1; the buffers hold max_elements elements.
  virtual absl::StatusOr<int64_t> Read(int64_t max_elements, float* features, int32_t* labels) = 0;
};

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_ELEMENT_SOURCE_H_
