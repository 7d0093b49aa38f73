// The 8x8 digits data set (UCI optdigits test set, 1,797 images of 0-9 with
// 4-bit pixels) as scikit-learn ships it in Debian's python3-sklearn:
// sklearn/datasets/data/digits.csv.gz, fetched by scripts/fetch-digits.sh.
// The file has no header and 65 integer columns per row: 64 pixels (0..16,
// row-major 8x8) and the class label last.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_DIGITS_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_DIGITS_H_

#include <cstdint>
#include <filesystem>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "trainer_runtime/data/dataset.h"

namespace trainpkg::data {

inline constexpr int64_t kDigitsCount = 1797;
inline constexpr int64_t kDigitsFeatures = 64;
inline constexpr int64_t kDigitsClasses = 10;
// The reference configuration of issue 5: 20% held out, split seed 0.
inline constexpr double kDigitsTestFraction = 0.2;
inline constexpr uint64_t kDigitsSplitSeed = 0;

// $TRAINPKG_DATA_DIR/digits.csv.gz when the variable is set, else
// `default_dir`/digits.csv.gz (scripts/fetch-digits.sh's rule; its default
// is <repo>/build/data).
std::filesystem::path DigitsPath(const base::Environment& env,
                                 const std::filesystem::path& default_dir);

// Element shape [64], pixels scaled by 1/16 into [0, 1], labels 0..9.
// The reader's errors (NotFound says to run scripts/fetch-digits.sh), or
// InvalidArgument when the file does not have 64 features per row or a
// label outside 0..9.
absl::StatusOr<Dataset> LoadDigits(const std::filesystem::path& path);

// The reference split: SplitTrainTest(digits, kDigitsTestFraction, seed),
// 1,437 train and 360 test images for the full set.
absl::StatusOr<TrainTestSplit> SplitDigits(const Dataset& digits, uint64_t seed = kDigitsSplitSeed);

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_DIGITS_H_
