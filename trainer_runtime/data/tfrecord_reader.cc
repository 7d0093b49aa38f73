#include "trainer_runtime/data/tfrecord_reader.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <utility>

#include "base/crc32c.h"
#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::data {
namespace {

uint64_t LoadLE(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = bytes - 1; i >= 0; --i) v = (v << 8) | p[i];
  return v;
}

// Record data is read in pieces of this size, so memory grows with the
// bytes actually present, never with a length the header only claims.
constexpr uint64_t kReadPiece = uint64_t{1} << 20;

}  // namespace

TfRecordReader::TfRecordReader(std::filesystem::path path, std::FILE* file,
                               uint64_t max_record_bytes)
    : path_(std::move(path)), file_(file, &std::fclose), max_record_bytes_(max_record_bytes) {}

absl::StatusOr<std::unique_ptr<TfRecordReader>> TfRecordReader::Open(
    const std::filesystem::path& path, uint64_t max_record_bytes) {
  std::FILE* file = std::fopen(path.c_str(), "rb");
  if (file == nullptr) return base::ErrnoToStatus(errno, fmt::format("opening {}", path.string()));
  return std::unique_ptr<TfRecordReader>(new TfRecordReader(path, file, max_record_bytes));
}

absl::StatusOr<bool> TfRecordReader::Next(std::string* record) {
  const uint64_t start = offset_;
  auto corrupt = [&](std::string_view what) {
    return absl::DataLossError(
        fmt::format("{}: record at offset {}: {}", path_.string(), start, what));
  };
  unsigned char header[12];
  const size_t got = std::fread(header, 1, sizeof(header), file_.get());
  if (got == 0 && std::feof(file_.get())) return false;
  if (std::ferror(file_.get())) {
    return base::ErrnoToStatus(errno, fmt::format("reading {}", path_.string()));
  }
  if (got < sizeof(header)) {
    return corrupt(fmt::format("truncated: the file ends {} bytes into the 12-byte header", got));
  }
  const uint64_t length = LoadLE(header, 8);
  const auto stored_length_crc = static_cast<uint32_t>(LoadLE(header + 8, 4));
  const uint32_t length_crc = base::MaskCrc32c(base::Crc32cExtend(0, header, 8));
  if (stored_length_crc != length_crc) {
    return corrupt(fmt::format("length crc mismatch (stored 0x{:08x}, computed 0x{:08x})",
                               stored_length_crc, length_crc));
  }
  if (length > max_record_bytes_) {
    return corrupt(
        fmt::format("length {} exceeds the cap of {} bytes per record", length, max_record_bytes_));
  }
  record->clear();
  uint64_t got_data = 0;
  while (got_data < length) {
    const uint64_t want = std::min(length - got_data, kReadPiece);
    record->resize(got_data + want);
    const size_t n = std::fread(record->data() + got_data, 1, want, file_.get());
    got_data += n;
    if (n < want) break;
  }
  record->resize(got_data);
  unsigned char footer[4];
  const size_t got_footer = got_data == length ? std::fread(footer, 1, 4, file_.get()) : 0;
  if (std::ferror(file_.get())) {
    return base::ErrnoToStatus(errno, fmt::format("reading {}", path_.string()));
  }
  if (got_data < length || got_footer < 4) {
    return corrupt(fmt::format("truncated: {} data bytes + 4 crc bytes announced, {} present",
                               length, got_data + got_footer));
  }
  const auto stored_crc = static_cast<uint32_t>(LoadLE(footer, 4));
  const uint32_t crc = base::MaskedCrc32c(*record);
  if (stored_crc != crc) {
    return corrupt(
        fmt::format("data crc mismatch (stored 0x{:08x}, computed 0x{:08x})", stored_crc, crc));
  }
  offset_ = start + 12 + length + 4;
  return true;
}

absl::StatusOr<std::vector<std::string>> ReadTfRecordFile(const std::filesystem::path& path) {
  absl::StatusOr<std::unique_ptr<TfRecordReader>> reader = TfRecordReader::Open(path);
  if (!reader.ok()) return reader.status();
  std::vector<std::string> records;
  std::string record;
  while (true) {
    absl::StatusOr<bool> got = (*reader)->Next(&record);
    if (!got.ok()) return got.status();
    if (!*got) break;
    records.push_back(record);
  }
  return records;
}

}  // namespace trainpkg::data
