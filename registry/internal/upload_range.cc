#include "registry/internal/upload_range.h"

#include "absl/strings/numbers.h"
#include "fmt/format.h"

namespace trainpkg::registry::internal {

std::string ContentRange(uint64_t offset, uint64_t length) {
  return fmt::format("{}-{}", offset, offset + length - 1);
}

absl::StatusOr<uint64_t> UploadedBytes(const std::optional<std::string>& range) {
  if (!range.has_value()) return 0;
  std::string_view text = *range;
  if (text.starts_with("bytes=")) text.remove_prefix(6);
  size_t dash = text.find('-');
  uint64_t start = 0, end = 0;
  if (dash == std::string_view::npos ||
      !absl::SimpleAtoi(std::string(text.substr(0, dash)), &start) ||
      !absl::SimpleAtoi(std::string(text.substr(dash + 1)), &end) || start != 0) {
    return absl::InvalidArgumentError(fmt::format(
        "the registry reported the upload range \"{}\"; expected \"0-<last byte>\"", *range));
  }
  return end == 0 ? 0 : end + 1;
}

}  // namespace trainpkg::registry::internal
