// Crafted data files (issue #16 finding 15): dimensions whose product wraps,
// a gzip file inflating far past its header, a TFRecord length header
// announcing 16 GiB, a tensor file whose shape overflows. Each ends with a
// clear error (file, what, the limit) and bounded memory.
#include <zlib.h>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <string>

#include "base/crc32c.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/data/test_files.h"
#include "trainer_runtime/data/csv_reader.h"
#include "trainer_runtime/data/idx_reader.h"
#include "trainer_runtime/data/tfrecord_reader.h"
#include "trainer_runtime/nn/element_count.h"
#include "trainer_runtime/train/tensor_bundle.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::data {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMaxPeakRssKib = 256 << 10;
// Each child may map no more than this, so a reader that allocates what a
// header claims fails there instead of exhausting the machine.
constexpr int64_t kChildAddressSpace = int64_t{4} << 30;

std::string BigEndian32(uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8),
          static_cast<char>(v)};
}

// An IDX uint8 header for `dims` with no values after it.
std::string IdxHeader(const std::vector<uint32_t>& dims) {
  std::string out = {0, 0, 0x08, static_cast<char>(dims.size())};
  for (uint32_t d : dims) out += BigEndian32(d);
  return out;
}

// Streams `header` then `zeros` zero bytes through gzip (level 1), never
// holding the inflated bytes.
void WriteGzipBomb(const std::filesystem::path& path, const std::string& header, int64_t zeros) {
  gzFile file = gzopen(path.c_str(), "wb1");
  ASSERT_NE(file, nullptr);
  ASSERT_EQ(gzwrite(file, header.data(), static_cast<unsigned>(header.size())),
            static_cast<int>(header.size()));
  const std::string block(1 << 20, '\0');
  for (int64_t left = zeros; left > 0; left -= static_cast<int64_t>(block.size())) {
    ASSERT_GT(gzwrite(file, block.data(), static_cast<unsigned>(block.size())), 0);
  }
  ASSERT_EQ(gzclose(file), Z_OK);
}

// 2^20 * 2^20 * 2^24 = 2^64 elements: the product wraps to 0, which a
// 16-byte file matches.
TEST(HostileDataFilesTest, IdxDimensionsWhoseProductWrapsAreRefused) {
  const std::string header = IdxHeader({1u << 20, 1u << 20, 1u << 24});
  auto parsed = ParseIdx(header, "wrap.idx");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("wrap.idx: dimensions [1048576, 1048576, 16777216] need more bytes "
                        "than a file can hold"));
  // The same with a few bytes of values and four dimensions.
  EXPECT_FALSE(ParseIdx(IdxHeader({1u << 16, 1u << 16, 1u << 16, 1u << 16}) + "abcd", "w4").ok());
}

// 16 bytes announced, 300 MB inflated: the reader stops past the header's
// size instead of holding the whole stream.
TEST(HostileDataFilesTest, IdxGzipInflatingPastItsDimensionsEndsWithBoundedMemory) {
  testing::TempDir dir;
  const std::filesystem::path bomb = dir / "bomb-idx1-ubyte.gz";
  WriteGzipBomb(bomb, IdxHeader({16}), int64_t{300} << 20);
  ASSERT_LT(std::filesystem::file_size(bomb), 2u << 20);
  const ::trainpkg::testing::ChildRun run = ::trainpkg::testing::RunInChildMeasured(
      [&] {
        auto arr = ReadIdx(bomb);
        if (arr.ok()) return 1;
        if (arr.status().code() != absl::StatusCode::kDataLoss) return 2;
        const std::string message(arr.status().message());
        if (message.find(bomb.string()) == std::string::npos) return 3;
        if (message.find("need 24 bytes, the file has more") == std::string::npos) return 4;
        return 0;
      },
      kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
}

// A CSV has no header announcing its size: the reader stops once the text
// passes CsvOptions::max_bytes (here 1 MiB of a 300 MB inflation).
TEST(HostileDataFilesTest, CsvGzipInflatingPastTheCapEndsWithBoundedMemory) {
  testing::TempDir dir;
  const std::filesystem::path bomb = dir / "bomb.csv.gz";
  WriteGzipBomb(bomb, "1,2,3\n", int64_t{300} << 20);
  ASSERT_LT(std::filesystem::file_size(bomb), 2u << 20);
  CsvOptions options;
  options.max_bytes = 1 << 20;
  const ::trainpkg::testing::ChildRun run = ::trainpkg::testing::RunInChildMeasured(
      [&] {
        auto csv = ReadCsv(bomb, options);
        if (csv.ok()) return 1;
        std::fprintf(stderr, "%s\n", csv.status().ToString().c_str());
        if (csv.status().code() != absl::StatusCode::kResourceExhausted) return 2;
        const std::string want = bomb.string() +
                                 ": more than 1048576 bytes of CSV text (after gunzip); "
                                 "CsvOptions::max_bytes sets the cap";
        return std::string(csv.status().message()) == want ? 0 : 3;
      },
      kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
  // At the cap exactly, the file is read.
  const std::filesystem::path small = dir / "small.csv.gz";
  WriteGzipBomb(small, "1,2,3\n", 0);
  options.max_bytes = 6;
  EXPECT_THAT(ReadCsv(small, options), IsOk());
  options.max_bytes = 5;
  EXPECT_EQ(ReadCsv(small, options).status().code(), absl::StatusCode::kResourceExhausted);
}

// A record header announcing `length` bytes (its CRC valid) and then only
// `present` bytes of data.
std::string ForgedTfRecord(uint64_t length, size_t present) {
  std::string header(8, '\0');
  for (int i = 0; i < 8; ++i) header[i] = static_cast<char>((length >> (8 * i)) & 0xff);
  const uint32_t crc = base::MaskCrc32c(base::Crc32cExtend(0, header.data(), 8));
  for (int i = 0; i < 4; ++i) header.push_back(static_cast<char>((crc >> (8 * i)) & 0xff));
  return testing::TfRecordFrame("first") + header + std::string(present, 'x');
}

TEST(HostileDataFilesTest, TfRecordLengthAboveTheCapIsRefusedNamingFileOffsetAndCap) {
  testing::TempDir dir;
  const std::filesystem::path path = dir / "forged.tfrecord";
  testing::WriteBytes(path, ForgedTfRecord(uint64_t{16} << 30, 64));
  const ::trainpkg::testing::ChildRun run = ::trainpkg::testing::RunInChildMeasured(
      [&] {
        auto records = ReadTfRecordFile(path);
        if (records.ok() || records.status().code() != absl::StatusCode::kDataLoss) return 1;
        const std::string message(records.status().message());
        const std::string want = path.string() +
                                 ": record at offset 21: length 17179869184 exceeds the cap of "
                                 "268435456 bytes per record";
        return message == want ? 0 : 2;
      },
      kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
}

// Within the cap but far beyond the file: memory follows the bytes present.
TEST(HostileDataFilesTest, TfRecordLengthBeyondTheFileEndsAsTruncatedWithBoundedMemory) {
  testing::TempDir dir;
  const std::filesystem::path path = dir / "short.tfrecord";
  testing::WriteBytes(path, ForgedTfRecord(uint64_t{256} << 20, 1000));  // the default cap
  const ::trainpkg::testing::ChildRun run = ::trainpkg::testing::RunInChildMeasured(
      [&] {
        auto records = ReadTfRecordFile(path);
        if (records.ok()) return 1;
        const std::string message(records.status().message());
        return message.find("record at offset 21: truncated") != std::string::npos ? 0 : 2;
      },
      kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  // The test binary and 1000 bytes, not the 256 MiB announced.
  EXPECT_LE(run.peak_rss_kib, 64 << 10);
}

void PutU32(std::string& out, uint32_t v) {
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// A tensor file (train/tensor_bundle.h) with the given JSON header and no
// data, its CRC valid.
std::string TensorFile(const std::string& json) {
  std::string out = "TPTENSOR";
  PutU32(out, train::kTensorBundleVersion);
  PutU32(out, static_cast<uint32_t>(json.size()));
  out += json;
  PutU32(out, base::MaskedCrc32c(out));
  return out;
}

// 2^32 * 2^32 elements wrap to 0 floats, which an empty data section matches.
TEST(HostileDataFilesTest, TensorFileShapeWhoseProductWrapsIsRefused) {
  const std::string bytes =
      TensorFile(R"({"kind":"checkpoint","layers":[],"counters":{"step":1},)"
                 R"("tensors":[{"name":"w","shape":[4294967296,4294967296]}]})");
  auto bundle = train::DecodeTensorBundle(bytes, "ckpt.tpt");
  ASSERT_FALSE(bundle.ok());
  EXPECT_EQ(bundle.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_EQ(bundle.status().message(),
            "ckpt.tpt: tensor w of shape [4294967296, 4294967296] runs past the end of the data");
}

TEST(ElementCountTest, ProductsAreBoundedWithoutOverflow) {
  using nn::NumElementsAtMost;
  EXPECT_EQ(NumElementsAtMost({}, 0), std::nullopt);  // 1 element > 0
  EXPECT_EQ(NumElementsAtMost({}, 1), 1);
  EXPECT_EQ(NumElementsAtMost({3, 4}, 12), 12);
  EXPECT_EQ(NumElementsAtMost({3, 4}, 11), std::nullopt);
  EXPECT_EQ(NumElementsAtMost({int64_t{1} << 32, int64_t{1} << 32}, INT64_MAX), std::nullopt);
  EXPECT_EQ(NumElementsAtMost({int64_t{1} << 40, int64_t{1} << 40, 0}, 5), 0);
  EXPECT_EQ(NumElementsAtMost({2, -1}, 100), std::nullopt);
  EXPECT_EQ(NumElementsAtMost({2}, -1), std::nullopt);
}

}  // namespace
}  // namespace trainpkg::data
