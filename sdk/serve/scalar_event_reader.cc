#include "sdk/serve/scalar_event_reader.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <optional>

#include "base/crc32c.h"
#include "base/file_util.h"
#include "fmt/format.h"

namespace trainpkg::sdk::serve {
namespace {

// The protobuf wire format, as far as Event, Summary and Summary.Value need.
class WireReader {
 public:
  explicit WireReader(std::string_view data) : data_(data) {}

  bool done() const { return data_.empty(); }

  std::optional<uint64_t> Varint() {
    uint64_t value = 0;
    for (int shift = 0; shift < 64 && !data_.empty(); shift += 7) {
      const auto byte = static_cast<uint8_t>(data_[0]);
      data_.remove_prefix(1);
      value |= static_cast<uint64_t>(byte & 0x7f) << shift;
      if ((byte & 0x80) == 0) return value;
    }
    return std::nullopt;
  }

  std::optional<std::string_view> Bytes(size_t n) {
    if (n > data_.size()) return std::nullopt;
    std::string_view out = data_.substr(0, n);
    data_.remove_prefix(n);
    return out;
  }

  // One field: its number, wire type and (for types 1, 2, 5) its bytes;
  // a varint's value in `varint`. False at malformed input.
  bool Field(uint32_t& number, uint32_t& type, uint64_t& varint, std::string_view& bytes) {
    std::optional<uint64_t> key = Varint();
    if (!key.has_value() || (*key >> 3) == 0) return false;
    number = static_cast<uint32_t>(*key >> 3);
    type = static_cast<uint32_t>(*key & 7);
    std::optional<std::string_view> got;
    switch (type) {
      case 0: {
        std::optional<uint64_t> v = Varint();
        if (!v.has_value()) return false;
        varint = *v;
        return true;
      }
      case 1:
        got = Bytes(8);
        break;
      case 5:
        got = Bytes(4);
        break;
      case 2: {
        std::optional<uint64_t> n = Varint();
        if (!n.has_value()) return false;
        got = Bytes(*n);
        break;
      }
      default:
        return false;
    }
    if (!got.has_value()) return false;
    bytes = *got;
    return true;
  }

 private:
  std::string_view data_;
};

template <typename T>
T LittleEndian(std::string_view bytes) {
  T value;
  static_assert(std::endian::native == std::endian::little);
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

// Summary.Value {tag = 1, simple_value = 2 (float)}: false when malformed;
// `has_value` tells whether it is a scalar.
bool ParseValue(std::string_view data, ScalarPoint& point, bool& has_value) {
  WireReader reader(data);
  has_value = false;
  while (!reader.done()) {
    uint32_t number = 0, type = 0;
    uint64_t varint = 0;
    std::string_view bytes;
    if (!reader.Field(number, type, varint, bytes)) return false;
    if (number == 1 && type == 2) point.tag = std::string(bytes);
    if (number == 2 && type == 5) {
      point.value = LittleEndian<float>(bytes);
      has_value = true;
    }
  }
  return true;
}

// Event {wall_time = 1 (double), step = 2, summary = 5 {value = 1 ...}}.
bool ParseEvent(std::string_view data, std::vector<ScalarPoint>& out) {
  WireReader reader(data);
  double wall_time = 0;
  int64_t step = 0;
  std::vector<ScalarPoint> values;
  while (!reader.done()) {
    uint32_t number = 0, type = 0;
    uint64_t varint = 0;
    std::string_view bytes;
    if (!reader.Field(number, type, varint, bytes)) return false;
    if (number == 1 && type == 1) wall_time = LittleEndian<double>(bytes);
    if (number == 2 && type == 0) step = static_cast<int64_t>(varint);
    if (number == 5 && type == 2) {
      WireReader summary(bytes);
      while (!summary.done()) {
        uint32_t n = 0, t = 0;
        uint64_t v = 0;
        std::string_view value_bytes;
        if (!summary.Field(n, t, v, value_bytes)) return false;
        if (n != 1 || t != 2) continue;
        ScalarPoint point;
        bool scalar = false;
        if (!ParseValue(value_bytes, point, scalar)) return false;
        if (scalar) values.push_back(std::move(point));
      }
    }
  }
  for (ScalarPoint& point : values) {
    point.wall_time = wall_time;
    point.step = step;
    out.push_back(std::move(point));
  }
  return true;
}

}  // namespace

absl::StatusOr<std::vector<ScalarPoint>> ParseScalarEvents(std::string_view data) {
  std::vector<ScalarPoint> points;
  size_t offset = 0;
  constexpr size_t kHeader = 12, kFooter = 4;
  while (data.size() - offset >= kHeader) {
    std::string_view header = data.substr(offset, kHeader);
    const auto length = LittleEndian<uint64_t>(header.substr(0, 8));
    if (base::MaskedCrc32c(header.substr(0, 8)) != LittleEndian<uint32_t>(header.substr(8, 4))) {
      return absl::DataLossError(
          fmt::format("record at byte {}: the length's CRC does not match", offset));
    }
    if (length > data.size() - offset - kHeader ||
        data.size() - offset - kHeader - length < kFooter) {
      break;  // being appended
    }
    std::string_view payload = data.substr(offset + kHeader, length);
    if (base::MaskedCrc32c(payload) !=
        LittleEndian<uint32_t>(data.substr(offset + kHeader + length, kFooter))) {
      return absl::DataLossError(
          fmt::format("record at byte {}: the event's CRC does not match", offset));
    }
    if (!ParseEvent(payload, points)) {
      return absl::DataLossError(
          fmt::format("record at byte {}: not a valid Event protobuf", offset));
    }
    offset += kHeader + length + kFooter;
  }
  return points;
}

absl::StatusOr<std::vector<ScalarPoint>> ReadScalarEventFile(const std::filesystem::path& path) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", path.string()));
  struct stat st {};
  std::string data;
  absl::Status status;
  if (::fstat(fd, &st) != 0) {
    status = base::ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
  } else if (!S_ISREG(st.st_mode)) {
    status = absl::InvalidArgumentError(fmt::format("{}: not a regular file", path.string()));
  } else if (static_cast<uint64_t>(st.st_size) > kMaxEventFileBytes) {
    status = absl::InvalidArgumentError(
        fmt::format("{}: {} bytes, more than the {} an event file may have here", path.string(),
                    st.st_size, kMaxEventFileBytes));
  } else {
    data.resize(static_cast<size_t>(st.st_size));
    size_t got = 0;
    while (got < data.size()) {
      ssize_t n = ::read(fd, data.data() + got, data.size() - got);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) {
        status = base::ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
        break;
      }
      if (n == 0) break;
      got += static_cast<size_t>(n);
    }
    data.resize(got);
  }
  ::close(fd);
  if (!status.ok()) return status;
  absl::StatusOr<std::vector<ScalarPoint>> points = ParseScalarEvents(data);
  if (!points.ok()) {
    return absl::Status(
        points.status().code(),
        fmt::format("{}: {}", path.string(), std::string(points.status().message())));
  }
  return points;
}

std::vector<std::filesystem::path> ListEventFiles(const std::filesystem::path& dir) {
  std::vector<std::filesystem::path> files;
  std::error_code error;
  for (std::filesystem::directory_iterator it(dir, error), end; !error && it != end;
       it.increment(error)) {
    if (it->path().filename().string().find("tfevents") != std::string::npos &&
        it->symlink_status().type() == std::filesystem::file_type::regular) {
      files.push_back(it->path());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace trainpkg::sdk::serve
