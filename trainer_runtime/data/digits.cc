#include "trainer_runtime/data/digits.h"

#include <string>

#include "fmt/format.h"
#include "trainer_runtime/data/csv_reader.h"

namespace trainpkg::data {

std::filesystem::path DigitsPath(const base::Environment& env,
                                 const std::filesystem::path& default_dir) {
  std::optional<std::string> dir = env.Get("TRAINPKG_DATA_DIR");
  const std::filesystem::path base =
      dir && !dir->empty() ? std::filesystem::path(*dir) : default_dir;
  return base / "digits.csv.gz";
}

absl::StatusOr<Dataset> LoadDigits(const std::filesystem::path& path) {
  CsvOptions options;
  options.has_header = false;
  options.label_column = -1;
  absl::StatusOr<Dataset> digits = ReadCsv(path, options);
  if (!digits.ok()) {
    if (absl::IsNotFound(digits.status())) {
      return absl::NotFoundError(fmt::format("{} (fetch it with scripts/fetch-digits.sh)",
                                             std::string(digits.status().message())));
    }
    return digits.status();
  }
  if (digits->element_size() != kDigitsFeatures) {
    return absl::InvalidArgumentError(fmt::format("{}: {} features per row, digits have {}",
                                                  path.string(), digits->element_size(),
                                                  kDigitsFeatures));
  }
  for (int64_t i = 0; i < digits->size(); ++i) {
    if (digits->labels()[i] >= kDigitsClasses) {
      return absl::InvalidArgumentError(fmt::format("{}: row {} has label {}; digits are 0..9",
                                                    path.string(), i + 1, digits->labels()[i]));
    }
  }
  digits->ScaleFeatures(1.0f / 16.0f);
  return digits;
}

absl::StatusOr<TrainTestSplit> SplitDigits(const Dataset& digits, uint64_t seed) {
  return SplitTrainTest(digits, kDigitsTestFraction, seed);
}

}  // namespace trainpkg::data
