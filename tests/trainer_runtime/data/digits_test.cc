// Loads the real digits file that scripts/fetch-digits.sh puts in
// DIGITS_DATA_DIR (the ctest fixture fetch_digits runs it first).
#include "trainer_runtime/data/digits.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <array>
#include <set>

#include "base/environment.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::data {
namespace {

using ::testing::ElementsAre;

Dataset Load() {
  base::MapEnvironment env;
  env.Set("TRAINPKG_DATA_DIR", DIGITS_DATA_DIR);
  auto digits = LoadDigits(DigitsPath(env, "unused"));
  EXPECT_THAT(digits, IsOk());
  return digits.ok() ? *std::move(digits) : Dataset();
}

TEST(DigitsTest, ShapeLabelsAndClassCounts) {
  const Dataset digits = Load();
  ASSERT_EQ(digits.size(), kDigitsCount);
  EXPECT_EQ(digits.element_shape(), nn::Shape({64}));
  std::array<int, 10> counts{};
  for (int32_t y : digits.labels()) {
    ASSERT_GE(y, 0);
    ASSERT_LT(y, 10);
    ++counts[y];
  }
  EXPECT_THAT(counts, ElementsAre(178, 182, 177, 183, 181, 182, 181, 179, 174, 180));
  float lo = 1.0f, hi = 0.0f;
  for (float v : digits.features()) {
    lo = std::min(lo, v);
    hi = std::max(hi, v);
  }
  EXPECT_EQ(lo, 0.0f);
  EXPECT_EQ(hi, 1.0f);  // 16 / 16
  // The first row of the file: a 0 whose pixel 2 is 5 and pixel 3 is 13.
  EXPECT_EQ(digits.labels()[0], 0);
  EXPECT_FLOAT_EQ(digits.element(0)[2], 5.0f / 16.0f);
  EXPECT_FLOAT_EQ(digits.element(0)[3], 13.0f / 16.0f);
}

TEST(DigitsTest, ReferenceSplit) {
  const Dataset digits = Load();
  auto split = SplitDigits(digits);
  ASSERT_THAT(split, IsOk());
  EXPECT_EQ(split->train.size(), 1437);
  EXPECT_EQ(split->test.size(), 360);
  std::set<int32_t> classes(split->test.labels().begin(), split->test.labels().end());
  EXPECT_EQ(classes.size(), 10u);
}

TEST(DigitsTest, MissingFileSaysHowToFetchIt) {
  auto missing = LoadDigits("/nonexistent-trainpkg/digits.csv.gz");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()),
              ::testing::HasSubstr("scripts/fetch-digits.sh"));
}

TEST(DigitsTest, PathRule) {
  base::MapEnvironment empty;
  EXPECT_EQ(DigitsPath(empty, "build/data"), std::filesystem::path("build/data/digits.csv.gz"));
}

}  // namespace
}  // namespace trainpkg::data
