#include "sdk/cli/help_format.h"

#include <algorithm>
#include <sstream>

namespace trainpkg::cli {
namespace {

constexpr size_t kMinDescriptionWidth = 20;

// Appends `line` to `out` broken at spaces into pieces of at most `width`;
// a word longer than that is broken after a ',', ';' or '/' in it (a list,
// a URL), else kept whole.
void WrapLine(std::string_view line, size_t width, std::string& out) {
  size_t start = 0;
  while (line.size() - start > width) {
    // The last space at or before `width` characters from `start`.
    size_t cut = line.rfind(' ', start + width);
    size_t next = cut + 1;
    if (cut == std::string_view::npos || cut <= start) {
      size_t after = line.find_last_of(",;/", start + width - 1);
      if (after == std::string_view::npos || after < start) {
        after = line.find_first_of(",;/", start + width);  // the shortest piece over
      }
      const size_t space = line.find(' ', start + width);
      if (after != std::string_view::npos && after + 1 < std::min(space, line.size())) {
        cut = after + 1;
        next = cut;
      } else if (space != std::string_view::npos) {
        cut = space;
        next = cut + 1;
      } else {
        break;
      }
    }
    out.append(line.substr(start, cut - start));
    out.push_back('\n');
    start = line.find_first_not_of(' ', next);
    if (start == std::string_view::npos) return;
  }
  out.append(line.substr(start));
}

}  // namespace

std::string WrapText(std::string_view text, size_t width) {
  std::string out;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = std::min(text.find('\n', start), text.size());
    std::string_view line = text.substr(start, end - start);
    if (line.starts_with("  ")) {
      out.append(line);
    } else {
      WrapLine(line, width, out);
    }
    if (end == text.size()) break;
    out.push_back('\n');
    start = end + 1;
  }
  return out;
}

WrappingFormatter::WrappingFormatter(size_t columns) : columns_(columns) {
  // The flag-name column: CLI11's 30 from 80 columns on, narrower below so
  // that descriptions keep room.
  column_width(std::clamp<size_t>(columns * 3 / 8, 20, 30));
}

size_t WrappingFormatter::DescriptionWidth() const {
  return std::max(columns_ > get_column_width() ? columns_ - get_column_width() : 0,
                  kMinDescriptionWidth);
}

std::string WrappingFormatter::make_description(const CLI::App* app) const {
  return WrapText(CLI::Formatter::make_description(app), columns_);
}

std::string WrappingFormatter::make_footer(const CLI::App* app) const {
  return WrapText(CLI::Formatter::make_footer(app), columns_);
}

std::string WrappingFormatter::make_subcommand(const CLI::App* sub) const {
  std::stringstream out;
  CLI::detail::format_help(out, sub->get_display_name(true),
                           WrapText(sub->get_description(), DescriptionWidth()),
                           get_column_width());
  return out.str();
}

std::string WrappingFormatter::make_option_desc(const CLI::Option* option) const {
  return WrapText(CLI::Formatter::make_option_desc(option), DescriptionWidth());
}

}  // namespace trainpkg::cli
