// CLI11 validators for the samples' numeric flags, with short messages
// ("--epochs: 0 is not > 0") instead of CLI11 2.1's ranges up to DBL_MAX.
#ifndef TRAINPKG_SAMPLES_COMMON_FLAG_CHECKS_H_
#define TRAINPKG_SAMPLES_COMMON_FLAG_CHECKS_H_

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

}  // namespace trainpkg::samples

#endif  // TRAINPKG_SAMPLES_COMMON_FLAG_CHECKS_H_
