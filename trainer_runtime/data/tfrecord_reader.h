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

class TfRecordReader {
 public:
  // NotFound / PermissionDenied naming the path.
  static absl::StatusOr<std::unique_ptr<TfRecordReader>> Open(const std::filesystem::path& path);

  // Reads the next record into *record: true, or false at a clean end of file.
  // DataLoss, naming the file and the byte offset where the record starts,
  // for a length or data CRC mismatch or a record cut short by the end of the
  // file. REQUIRES: record != nullptr.
  absl::StatusOr<bool> Next(std::string* record);

  // Byte offset of the next record.
  uint64_t offset() const { return offset_; }

 private:
  TfRecordReader(std::filesystem::path path, std::FILE* file);

  std::filesystem::path path_;
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> file_;
  uint64_t offset_ = 0;
};

// Every record of `path`, in order (errors as TfRecordReader's).
absl::StatusOr<std::vector<std::string>> ReadTfRecordFile(const std::filesystem::path& path);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_TFRECORD_READER_H_
