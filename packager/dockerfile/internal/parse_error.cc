#include "packager/dockerfile/internal/parse_error.h"

#include "fmt/format.h"

namespace trainpkg::packager::dockerfile::internal {

absl::Status LineError(std::string_view path, const SourceRange& lines, std::string_view keyword,
                       std::string_view message) {
  return absl::InvalidArgumentError(
      fmt::format("{}:{}: {}: {}", path, lines.first_line, keyword, message));
}

}  // namespace trainpkg::packager::dockerfile::internal
