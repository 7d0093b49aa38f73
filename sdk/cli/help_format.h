// --help text that fits the terminal: CLI11's layout (flag names in a
// column, descriptions beside them) with every description, the command's
// text and its footer wrapped at word boundaries to the terminal's width.
// Lines that start with two spaces (the examples) are kept as written.
#ifndef TRAINPKG_SDK_CLI_HELP_FORMAT_H_
#define TRAINPKG_SDK_CLI_HELP_FORMAT_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

// `text` with each line of more than `width` characters broken at spaces
// (a word longer than `width` keeps a line of its own); its own line breaks
// stay, and lines that start with two spaces are not touched.
std::string WrapText(std::string_view text, size_t width);

class WrappingFormatter : public CLI::Formatter {
 public:
  explicit WrappingFormatter(size_t columns);

  std::string make_description(const CLI::App* app) const override;
  std::string make_footer(const CLI::App* app) const override;
  std::string make_subcommand(const CLI::App* sub) const override;
  std::string make_option_desc(const CLI::Option* option) const override;

 private:
  // The width left for a description beside the name column.
  size_t DescriptionWidth() const;

  size_t columns_;
};

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_HELP_FORMAT_H_
