// Bounds checks on the element ranges peers send (a chunk's offset and
// count within a shard), written so that no sum can overflow whatever
// values arrive: `offset + count > size` wraps for an offset near INT64_MAX
// and lets a write land outside the shard.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_ELEMENT_RANGE_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_ELEMENT_RANGE_H_

#include <cstdint>

namespace trainpkg::ps::internal {

// Whether elements [offset, offset + count) lie within [0, size).
constexpr bool ElementRangeFits(int64_t offset, int64_t count, int64_t size) {
  return offset >= 0 && count >= 0 && offset <= size && count <= size - offset;
}

}  // namespace trainpkg::ps::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_ELEMENT_RANGE_H_
