#include "trainer_runtime/data/csv_reader.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/data/test_files.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::vector<float> Features(const Dataset& d) { return {d.features().begin(), d.features().end()}; }
std::vector<int32_t> Labels(const Dataset& d) { return {d.labels().begin(), d.labels().end()}; }

TEST(CsvReaderTest, LabelLastByDefault) {
  auto ds = ParseCsv("1,2.5,0\n-3,4e-1,2\n", "t.csv", {});
  ASSERT_THAT(ds, IsOk());
  EXPECT_EQ(ds->element_shape(), nn::Shape({2}));
  EXPECT_THAT(Features(*ds), ElementsAre(1.0f, 2.5f, -3.0f, 0.4f));
  EXPECT_THAT(Labels(*ds), ElementsAre(0, 2));
}

TEST(CsvReaderTest, HeaderLabelByNameQuotedFieldsAndCrlf) {
  const std::string text =
      "\"label\",\"x, first\",\"say \"\"hi\"\"\"\r\n"
      "3, \"1.5\" ,2\r\n"
      "\r\n"
      "1,\"-2\",0.25\r\n";
  CsvOptions options;
  options.has_header = true;
  options.label_name = "label";
  auto ds = ParseCsv(text, "q.csv", options);
  ASSERT_THAT(ds, IsOk());
  EXPECT_THAT(Features(*ds), ElementsAre(1.5f, 2.0f, -2.0f, 0.25f));
  EXPECT_THAT(Labels(*ds), ElementsAre(3, 1));
}

TEST(CsvReaderTest, LabelColumnByIndex) {
  CsvOptions options;
  options.label_column = 0;
  auto ds = ParseCsv("7,1,2\n", "t.csv", options);
  ASSERT_THAT(ds, IsOk());
  EXPECT_THAT(Labels(*ds), ElementsAre(7));
  EXPECT_THAT(Features(*ds), ElementsAre(1.0f, 2.0f));
}

TEST(CsvReaderTest, BadNumberNamesFileLineColumn) {
  auto ds = ParseCsv("1,2,0\n1,abc,0\n", "bad.csv", {});
  ASSERT_FALSE(ds.ok());
  EXPECT_EQ(ds.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(ds.status().message()), "bad.csv:2:3: 'abc' is not a number");
}

TEST(CsvReaderTest, OtherErrors) {
  EXPECT_THAT(std::string(ParseCsv("1,2,0\n1,2\n", "f.csv", {}).status().message()),
              HasSubstr("f.csv:2:1: 2 fields, expected 3"));
  EXPECT_THAT(std::string(ParseCsv("1,2,x\n", "f.csv", {}).status().message()),
              HasSubstr("f.csv:1:5: label 'x' is not a non-negative integer"));
  EXPECT_THAT(std::string(ParseCsv("1,,0\n", "f.csv", {}).status().message()),
              HasSubstr("f.csv:1:3: empty field 2"));
  EXPECT_THAT(std::string(ParseCsv("1,\"2,0\n", "f.csv", {}).status().message()),
              HasSubstr("f.csv:1:3: unterminated quoted field"));
  CsvOptions named;
  named.has_header = true;
  named.label_name = "y";
  EXPECT_THAT(std::string(ParseCsv("a,b\n1,2\n", "f.csv", named).status().message()),
              HasSubstr("no column named 'y'"));
  CsvOptions out_of_range;
  out_of_range.label_column = 5;
  EXPECT_THAT(std::string(ParseCsv("1,2\n", "f.csv", out_of_range).status().message()),
              HasSubstr("label column 5 is out of range for 2 columns"));
}

TEST(CsvReaderTest, ReadsPlainAndGzipFiles) {
  testing::TempDir dir;
  const std::string text = "0.5,1\n0.25,0\n";
  testing::WriteBytes(dir / "a.csv", text);
  testing::WriteGzip(dir / "a.csv.gz", text);
  for (const char* name : {"a.csv", "a.csv.gz"}) {
    auto ds = ReadCsv(dir / name, {});
    ASSERT_THAT(ds, IsOk()) << name;
    EXPECT_THAT(Features(*ds), ElementsAre(0.5f, 0.25f)) << name;
    EXPECT_THAT(Labels(*ds), ElementsAre(1, 0)) << name;
  }
}

TEST(CsvReaderTest, GzipErrorsNameTheFile) {
  testing::TempDir dir;
  testing::WriteGzip(dir / "x.csv.gz", "1,2,0\n1,zz,0\n");
  EXPECT_THAT(std::string(ReadCsv(dir / "x.csv.gz", {}).status().message()),
              HasSubstr("x.csv.gz:2:3: 'zz' is not a number"));
  EXPECT_EQ(ReadCsv(dir / "missing.csv", {}).status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace trainpkg::data
