// Reads TFRecord files (tf.io.TFRecordWriter, TensorBoard event files). Each
// record is framed as
//   uint64 length (little-endian)
//   uint32 masked CRC-32C of the 8 length bytes
//   byte   data[length]
//   uint32 masked CRC-32C of data
// with the masking of base/crc32c.h. Both CRCs are checked. Uncompressed
// files only (TF's GZIP/ZLIB record options are not read).
//
//   TP_ASSIGN_OR_RETURN(auto reader, TfRecordReader::Open(path));
//   std::string record;
//   while (true) {
//     TP_ASSIGN_OR_RETURN(bool got, reader->Next(&record));
//     if (!got) break;
//   }
//
// Not thread-safe. Owns its open file.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_TFRECORD_READER_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_TFRECORD_READER_H_

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::data {

// The largest record a reader accepts unless told otherwise: 256 MiB, far
// above what TensorFlow writes in practice (tf.train.Example, event files),
// far below what a forged length header could ask for.
inline constexpr uint64_t kDefaultMaxTfRecordBytes = uint64_t{256} << 20;

class TfRecordReader {
 public:
  // NotFound / PermissionDenied naming the path. Records longer than
  // `max_record_bytes` are refused (see Next).
  static absl::StatusOr<std::unique_ptr<TfRecordReader>> Open(
      const std::filesystem::path& path, uint64_t max_record_bytes = kDefaultMaxTfRecordBytes);

  // Reads the next record into *record: true, or false at a clean end of file.
  // DataLoss, naming the file and the byte offset where the record starts,
  // for a length or data CRC mismatch, a length above the reader's cap, or a
  // record cut short by the end of the file. Memory grows with the bytes
  // present, not with the announced length. REQUIRES: record != nullptr.
  absl::StatusOr<bool> Next(std::string* record);

  // Byte offset of the next record.
  uint64_t offset() const { return offset_; }

 private:
  TfRecordReader(std::filesystem::path path, std::FILE* file, uint64_t max_record_bytes);

  std::filesystem::path path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  uint64_t max_record_bytes_;
  uint64_t offset_ = 0;
};

// Every record of `path`, in order (errors as TfRecordReader's).
absl::StatusOr<std::vector<std::string>> ReadTfRecordFile(const std::filesystem::path& path);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_TFRECORD_READER_H_
