#include "trainer_runtime/data/idx_reader.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <optional>
#include <utility>

#include "fmt/format.h"
#include "trainer_runtime/data/internal/read_maybe_gzipped.h"
#include "trainer_runtime/nn/element_count.h"

namespace trainpkg::data {
namespace {

uint64_t LoadBigEndian(const unsigned char* p, int bytes) {
  uint64_t v = 0;
  for (int i = 0; i < bytes; ++i) v = (v << 8) | p[i];
  return v;
}

int TypeSize(IdxType type) {
  switch (type) {
    case IdxType::kUint8:
    case IdxType::kInt8:
      return 1;
    case IdxType::kInt16:
      return 2;
    case IdxType::kInt32:
    case IdxType::kFloat32:
      return 4;
    case IdxType::kFloat64:
      return 8;
  }
  return 0;
}

float Convert(IdxType type, const unsigned char* p) {
  switch (type) {
    case IdxType::kUint8:
      return static_cast<float>(p[0]);
    case IdxType::kInt8:
      return static_cast<float>(static_cast<int8_t>(p[0]));
    case IdxType::kInt16:
      return static_cast<float>(static_cast<int16_t>(LoadBigEndian(p, 2)));
    case IdxType::kInt32:
      return static_cast<float>(static_cast<int32_t>(LoadBigEndian(p, 4)));
    case IdxType::kFloat32:
      return std::bit_cast<float>(static_cast<uint32_t>(LoadBigEndian(p, 4)));
    case IdxType::kFloat64:
      return static_cast<float>(std::bit_cast<double>(LoadBigEndian(p, 8)));
  }
  return 0.0f;
}

bool IsIntegerType(IdxType type) { return type != IdxType::kFloat32 && type != IdxType::kFloat64; }

// The header: magic, type and dimensions, and the bytes the whole file must
// have. The element count is checked (no product can wrap) against what a
// file can hold at all (no product wraps); ParseIdx then checks the actual
// size against it.
struct IdxHeader {
  IdxType type = IdxType::kUint8;
  nn::Shape dims;
  uint64_t header_bytes = 0;
  uint64_t count = 0;
  uint64_t file_bytes = 0;  // header_bytes + count * element size
};

// Enough bytes for the longest header (8 dimensions).
constexpr size_t kMaxHeaderBytes = 4 + 4 * 8;

absl::StatusOr<IdxHeader> ParseIdxHeader(std::string_view bytes, std::string_view name) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  if (bytes.size() < 4 || p[0] != 0 || p[1] != 0) {
    return absl::DataLossError(
        fmt::format("{}: not an IDX file (the first two bytes must be zero)", name));
  }
  IdxHeader h;
  h.type = static_cast<IdxType>(p[2]);
  const int elem = TypeSize(h.type);
  if (elem == 0) {
    return absl::DataLossError(fmt::format(
        "{}: unknown IDX element type 0x{:02x} (valid: 08, 09, 0b, 0c, 0d, 0e)", name, p[2]));
  }
  const int rank = p[3];
  if (rank < 1 || rank > 8) {
    return absl::DataLossError(fmt::format("{}: {} dimensions; IDX needs 1..8", name, rank));
  }
  h.header_bytes = 4 + 4 * static_cast<uint64_t>(rank);
  if (bytes.size() < h.header_bytes) {
    return absl::DataLossError(fmt::format("{}: truncated header ({} bytes)", name, bytes.size()));
  }
  for (int d = 0; d < rank; ++d) {
    h.dims.push_back(static_cast<int64_t>(LoadBigEndian(p + 4 + 4 * d, 4)));
  }
  // At most INT64_MAX bytes of values, so header + values cannot wrap.
  const std::optional<int64_t> count = nn::NumElementsAtMost(h.dims, INT64_MAX / elem);
  if (!count.has_value()) {
    return absl::DataLossError(fmt::format("{}: dimensions {} need more bytes than a file can hold",
                                           name, nn::ShapeToString(h.dims)));
  }
  h.count = static_cast<uint64_t>(*count);
  h.file_bytes = h.header_bytes + h.count * static_cast<uint64_t>(elem);
  return h;
}

}  // namespace

absl::StatusOr<IdxArray> ParseIdx(std::string_view bytes, std::string_view name) {
  absl::StatusOr<IdxHeader> h = ParseIdxHeader(bytes, name);
  if (!h.ok()) return h.status();
  if (bytes.size() < h->file_bytes) {
    return absl::DataLossError(fmt::format("{}: dimensions {} need {} bytes, the file has {}",
                                           name, nn::ShapeToString(h->dims), h->file_bytes,
                                           bytes.size()));
  }
  if (bytes.size() > h->file_bytes) {
    return absl::DataLossError(fmt::format("{}: dimensions {} need {} bytes, the file has more",
                                           name, nn::ShapeToString(h->dims), h->file_bytes));
  }
  IdxArray out;
  out.type = h->type;
  out.dims = h->dims;
  out.values.resize(h->count);
  const int elem = TypeSize(h->type);
  const unsigned char* v = reinterpret_cast<const unsigned char*>(bytes.data()) + h->header_bytes;
  for (uint64_t i = 0; i < h->count; ++i) out.values[i] = Convert(h->type, v + i * elem);
  return out;
}

absl::StatusOr<IdxArray> ReadIdx(const std::filesystem::path& path) {
  // The header first, then no more bytes than it announces: a gzip file
  // inflating far past its dimensions is refused without holding it.
  absl::StatusOr<std::string> head = internal::ReadMaybeGzipped(path, kMaxHeaderBytes);
  if (!head.ok()) return head.status();
  absl::StatusOr<IdxHeader> header = ParseIdxHeader(*head, path.string());
  if (!header.ok()) return header.status();
  absl::StatusOr<std::string> bytes = internal::ReadMaybeGzipped(path, header->file_bytes);
  if (!bytes.ok()) return bytes.status();
  return ParseIdx(*bytes, path.string());
}

absl::StatusOr<Dataset> LoadIdxDataset(const std::filesystem::path& images,
                                       const std::filesystem::path& labels, float scale) {
  absl::StatusOr<IdxArray> x = ReadIdx(images);
  if (!x.ok()) return x.status();
  absl::StatusOr<IdxArray> y = ReadIdx(labels);
  if (!y.ok()) return y.status();
  if (y->dims.size() != 1 || !IsIntegerType(y->type)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: labels must be a 1-D integer IDX array, got dimensions {}",
                    labels.string(), nn::ShapeToString(y->dims)));
  }
  if (y->dims[0] != x->dims[0]) {
    return absl::InvalidArgumentError(fmt::format("{} has {} images but {} has {} labels",
                                                  images.string(), x->dims[0], labels.string(),
                                                  y->dims[0]));
  }
  std::vector<int32_t> label_values(y->values.size());
  for (size_t i = 0; i < label_values.size(); ++i) {
    label_values[i] = static_cast<int32_t>(y->values[i]);
  }
  nn::Shape element(x->dims.begin() + 1, x->dims.end());
  if (scale != 1.0f) {
    for (float& v : x->values) v *= scale;
  }
  absl::StatusOr<Dataset> ds =
      Dataset::Create(std::move(element), std::move(x->values), std::move(label_values));
  if (!ds.ok()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {}", labels.string(), std::string(ds.status().message())));
  }
  return ds;
}

}  // namespace trainpkg::data
