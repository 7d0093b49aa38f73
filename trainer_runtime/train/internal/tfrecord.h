// TFRecord framing (tensorflow/core/lib/io/record_writer.cc), the container
// of TensorBoard event files:
//   uint64 length (little-endian)
//   uint32 masked CRC-32C of the 8 length bytes
//   length bytes of payload
//   uint32 masked CRC-32C of the payload
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_TFRECORD_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_TFRECORD_H_

#include <string>
#include <string_view>

namespace trainpkg::train::internal {

// The framed record for `payload`.
std::string FrameTfRecord(std::string_view payload);

}  // namespace trainpkg::train::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_TFRECORD_H_
