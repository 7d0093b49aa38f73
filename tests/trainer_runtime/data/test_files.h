// Helpers that write the files the data readers read: a fresh temp dir,
// plain and gzip files, IDX arrays and TFRecord framing (written here
// independently of the readers, from the format descriptions).
#ifndef TRAINPKG_TESTS_TRAINER_RUNTIME_DATA_TEST_FILES_H_
#define TRAINPKG_TESTS_TRAINER_RUNTIME_DATA_TEST_FILES_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "tests/test_util/file.h"

namespace trainpkg::data::testing {

using ::trainpkg::testing::TempDir;

// A new empty directory under the system temp dir, removed by the destructor.
void WriteBytes(const std::filesystem::path& path, std::string_view bytes);
// Writes `bytes` gzip-compressed with zlib's gzwrite.
void WriteGzip(const std::filesystem::path& path, std::string_view bytes);

// IDX bytes: magic 00 00 <type> <rank>, big-endian dims, big-endian values.
std::string IdxUint8(const std::vector<uint32_t>& dims, const std::vector<uint8_t>& values);
std::string IdxFloat32(const std::vector<uint32_t>& dims, const std::vector<float>& values);

// One TFRecord frame of `data`, and a whole file of frames.
std::string TfRecordFrame(std::string_view data);
void WriteTfRecords(const std::filesystem::path& path, const std::vector<std::string>& records);

}  // namespace trainpkg::data::testing

#endif  // TRAINPKG_TESTS_TRAINER_RUNTIME_DATA_TEST_FILES_H_
