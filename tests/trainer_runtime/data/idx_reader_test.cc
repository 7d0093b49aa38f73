#include "trainer_runtime/data/idx_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/data/test_files.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(IdxReaderTest, ImagesAndLabelsRoundTrip) {
  testing::TempDir dir;
  // Three 2x2 images, values 0..255, and labels; the images gzipped as MNIST ships them.
  testing::WriteGzip(dir / "images.gz",
                     testing::IdxUint8({3, 2, 2}, {0, 255, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  testing::WriteBytes(dir / "labels", testing::IdxUint8({3}, {9, 0, 4}));
  auto ds = LoadIdxDataset(dir / "images.gz", dir / "labels", 1.0f / 255.0f);
  ASSERT_THAT(ds, IsOk());
  EXPECT_EQ(ds->size(), 3);
  EXPECT_EQ(ds->element_shape(), nn::Shape({2, 2}));
  EXPECT_THAT(ds->labels(), ElementsAre(9, 0, 4));
  EXPECT_FLOAT_EQ(ds->element(0)[1], 1.0f);
  EXPECT_FLOAT_EQ(ds->element(2)[3], 10.0f / 255.0f);
}

TEST(IdxReaderTest, Float32BigEndian) {
  auto arr = ParseIdx(testing::IdxFloat32({2, 2}, {1.5f, -2.0f, 0.0f, 1e-3f}), "f.idx");
  ASSERT_THAT(arr, IsOk());
  EXPECT_EQ(arr->type, IdxType::kFloat32);
  EXPECT_EQ(arr->dims, nn::Shape({2, 2}));
  EXPECT_THAT(arr->values, ElementsAre(1.5f, -2.0f, 0.0f, 1e-3f));
}

TEST(IdxReaderTest, BadMagicTypeAndSize) {
  std::string bad = testing::IdxUint8({1}, {1});
  bad[0] = 1;
  EXPECT_THAT(std::string(ParseIdx(bad, "m.idx").status().message()),
              HasSubstr("m.idx: not an IDX file"));
  std::string type = testing::IdxUint8({1}, {1});
  type[2] = 0x07;
  EXPECT_THAT(std::string(ParseIdx(type, "t.idx").status().message()),
              HasSubstr("unknown IDX element type 0x07"));
  std::string truncated = testing::IdxUint8({4}, {1, 2, 3, 4});
  truncated.pop_back();
  auto status = ParseIdx(truncated, "s.idx").status();
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(status.message()), HasSubstr("s.idx: dimensions [4] need 12 bytes"));
}

TEST(IdxReaderTest, CountMismatch) {
  testing::TempDir dir;
  testing::WriteBytes(dir / "x", testing::IdxUint8({2, 1}, {1, 2}));
  testing::WriteBytes(dir / "y", testing::IdxUint8({3}, {1, 2, 3}));
  EXPECT_THAT(std::string(LoadIdxDataset(dir / "x", dir / "y", 1.0f).status().message()),
              HasSubstr("has 2 images but"));
}

}  // namespace
}  // namespace trainpkg::data
