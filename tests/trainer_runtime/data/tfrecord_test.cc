#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/test_util/status_matchers.h"
#include "tests/trainer_runtime/data/test_files.h"
#include "trainer_runtime/data/example.h"
#include "trainer_runtime/data/tfrecord_reader.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

Example Digit(std::vector<float> pixels, int64_t label) {
  return {{"pixels", Feature{std::move(pixels)}},
          {"label", Feature{std::vector<int64_t>{label}}},
          {"name", Feature{std::vector<std::string>{"d" + std::to_string(label)}}}};
}

TEST(TfRecordTest, RecordsRoundTrip) {
  testing::TempDir dir;
  const std::vector<std::string> records = {"", "a", std::string(1000, '\x7f'), "last"};
  testing::WriteTfRecords(dir / "r.tfrecord", records);
  auto back = ReadTfRecordFile(dir / "r.tfrecord");
  ASSERT_THAT(back, IsOk());
  EXPECT_EQ(*back, records);
}

TEST(TfRecordTest, ExampleWireFormatMatchesTensorFlow) {
  // Example{features{feature{key:"x" value{int64_list{value:[1]}}}}}, encoded by
  // hand from TF's field numbers: Example.features=1, Features.feature=1 (map),
  // entry key=1 value=2, Feature.int64_list=3, Int64List.value=1 packed.
  const std::string wire = {0x0a, 0x0c, 0x0a, 0x0a, 0x0a, 0x01, 'x',
                            0x12, 0x05, 0x1a, 0x03, 0x0a, 0x01, 0x01};
  EXPECT_EQ(SerializeExample({{"x", Feature{std::vector<int64_t>{1}}}}), wire);
  auto parsed = ParseExample(wire);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(std::get<std::vector<int64_t>>(parsed->at("x").value), std::vector<int64_t>{1});
}

TEST(TfRecordTest, ExamplesToDataset) {
  testing::TempDir dir;
  std::vector<std::string> records = {SerializeExample(Digit({0.0f, 0.5f, 1.0f, 0.25f}, 3)),
                                      SerializeExample(Digit({1.0f, 1.0f, 0.0f, 0.0f}, 8))};
  testing::WriteTfRecords(dir / "d.tfrecord", records);
  auto parsed = ParseExample(records[0]);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, Digit({0.0f, 0.5f, 1.0f, 0.25f}, 3));

  const ExampleSpec spec{.features_key = "pixels", .element_shape = {2, 2}, .label_key = "label"};
  auto ds = ReadTfRecordExamples(dir / "d.tfrecord", spec);
  ASSERT_THAT(ds, IsOk());
  EXPECT_EQ(ds->element_shape(), nn::Shape({2, 2}));
  EXPECT_THAT(ds->labels(), ElementsAre(3, 8));
  EXPECT_THAT(ds->features(), ElementsAre(0.0f, 0.5f, 1.0f, 0.25f, 1.0f, 1.0f, 0.0f, 0.0f));

  const ExampleSpec wrong{.features_key = "pixels", .element_shape = {3}, .label_key = "label"};
  EXPECT_THAT(std::string(ReadTfRecordExamples(dir / "d.tfrecord", wrong).status().message()),
              HasSubstr("record 0: feature 'pixels' has 4 values; element shape [3] needs 3"));
  const ExampleSpec bytes{.features_key = "name", .element_shape = {1}, .label_key = "label"};
  EXPECT_THAT(std::string(ReadTfRecordExamples(dir / "d.tfrecord", bytes).status().message()),
              HasSubstr("feature 'name' is a bytes_list"));
  EXPECT_EQ(ParseExample("\xff\xff").status().code(), absl::StatusCode::kDataLoss);
}

TEST(TfRecordTest, CorruptDataCrcNamesFileAndOffset) {
  testing::TempDir dir;
  std::string bytes = testing::TfRecordFrame("first") + testing::TfRecordFrame("second");
  const size_t second = testing::TfRecordFrame("first").size();  // 12 + 5 + 4 = 21
  bytes[second + 12] ^= 0x01;                                    // a data byte of record 2
  testing::WriteBytes(dir / "c.tfrecord", bytes);
  auto reader = TfRecordReader::Open(dir / "c.tfrecord");
  ASSERT_THAT(reader, IsOk());
  std::string record;
  ASSERT_TRUE((*reader)->Next(&record).value());
  EXPECT_EQ(record, "first");
  auto bad = (*reader)->Next(&record);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("c.tfrecord: record at offset 21: data crc mismatch"));
}

TEST(TfRecordTest, CorruptLengthCrc) {
  testing::TempDir dir;
  std::string bytes = testing::TfRecordFrame("abc");
  bytes[0] = 4;  // length says 4, its crc still says 3
  testing::WriteBytes(dir / "l.tfrecord", bytes);
  EXPECT_THAT(std::string(ReadTfRecordFile(dir / "l.tfrecord").status().message()),
              HasSubstr("record at offset 0: length crc mismatch"));
}

TEST(TfRecordTest, TruncatedFile) {
  testing::TempDir dir;
  const std::string whole = testing::TfRecordFrame("one") + testing::TfRecordFrame("two");
  testing::WriteBytes(dir / "t1.tfrecord", whole.substr(0, whole.size() - 2));
  EXPECT_THAT(std::string(ReadTfRecordFile(dir / "t1.tfrecord").status().message()),
              HasSubstr("t1.tfrecord: record at offset 19: truncated"));
  testing::WriteBytes(dir / "t2.tfrecord", whole.substr(0, 19 + 5));
  EXPECT_THAT(std::string(ReadTfRecordFile(dir / "t2.tfrecord").status().message()),
              HasSubstr("record at offset 19: truncated: the file ends 5 bytes into"));
  EXPECT_EQ(ReadTfRecordFile(dir / "none.tfrecord").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace trainpkg::data
