// The samples' command lines on CLI11: parsing with the samples' exit
// statuses, and validators for numeric flags with short messages
// ("--epochs: 0 is not > 0") instead of CLI11 2.1's ranges up to DBL_MAX.
#ifndef TRAINPKG_SAMPLES_COMMON_FLAGS_H_
#define TRAINPKG_SAMPLES_COMMON_FLAGS_H_

#include <optional>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/strings/numbers.h"

namespace trainpkg::samples {

// A number > 0 (strictly) or >= 0.
inline CLI::Validator AboveZero(bool or_equal = false) {
  return CLI::Validator(
      [or_equal](std::string& text) -> std::string {
        double value = 0;
        if (absl::SimpleAtod(text, &value) && (or_equal ? value >= 0 : value > 0)) return "";
        return text + (or_equal ? " is not >= 0" : " is not > 0");
      },
      or_equal ? ">=0" : ">0");
}

// Parses the command line into the options `app` was given. std::nullopt to
// go on; else the status to exit with: 0 after --help, 2 for a usage error
// (CLI11 has printed the help or the error).
inline std::optional<int> ParseCommandLine(CLI::App& app, int argc, char** argv) {
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }
  return std::nullopt;
}

}  // namespace trainpkg::samples

#endif  // TRAINPKG_SAMPLES_COMMON_FLAGS_H_
