// The dashboard's TensorBoard reader against the files the runtime's
// EventFileWriter writes (the format tf.summary writes), including one
// being appended to and one damaged.
#include "sdk/serve/scalar_event_reader.h"

#include <fstream>
#include <string>

#include "absl/time/time.h"
#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/train/event_file_writer.h"

namespace trainpkg::sdk::serve {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::TempDir;

absl::Time At(int seconds) { return absl::FromUnixSeconds(1'700'000'000 + seconds); }

ScalarPoint Point(std::string tag, int64_t step, int seconds, float value) {
  return {.tag = std::move(tag),
          .step = step,
          .wall_time = static_cast<double>(absl::ToUnixSeconds(At(seconds))),
          .value = value};
}

class ScalarEventReaderTest : public ::testing::Test {
 protected:
  // An event file with two epochs of loss and accuracy.
  std::filesystem::path WriteTwoEpochs() {
    auto writer = train::EventFileWriter::Create(dir_.path() / "logs", "host", At(0));
    EXPECT_THAT(writer, IsOk());
    EXPECT_THAT((*writer)->WriteScalars(0, At(1), {{"loss", 2.5f}, {"accuracy", 0.25f}}), IsOk());
    EXPECT_THAT((*writer)->WriteScalars(1, At(2), {{"loss", 1.5f}, {"accuracy", 0.75f}}), IsOk());
    return (*writer)->path();
  }

  TempDir dir_;
};

TEST_F(ScalarEventReaderTest, ReadsWhatTheRuntimeWrites) {
  const std::filesystem::path file = WriteTwoEpochs();
  absl::StatusOr<std::vector<ScalarPoint>> points = ReadScalarEventFile(file);
  ASSERT_THAT(points, IsOk());
  EXPECT_THAT(*points, ElementsAre(Point("loss", 0, 1, 2.5f), Point("accuracy", 0, 1, 0.25f),
                                   Point("loss", 1, 2, 1.5f), Point("accuracy", 1, 2, 0.75f)));
  EXPECT_THAT(ListEventFiles(dir_.path() / "logs"), ElementsAre(file));
  EXPECT_THAT(ListEventFiles(dir_.path() / "absent"), IsEmpty());
}

TEST_F(ScalarEventReaderTest, ALastRecordBeingWrittenIsLeftForLater) {
  const std::string whole = base::ReadFile(WriteTwoEpochs()).value();
  // Every cut inside the last record gives the first epoch only.
  const std::string last = train::ScalarEvent(2, 1, {{"loss", 1.5f}, {"accuracy", 0.75f}});
  const size_t last_record = whole.size() - (12 + last.size() + 4);
  for (size_t cut = last_record; cut < whole.size(); ++cut) {
    absl::StatusOr<std::vector<ScalarPoint>> points =
        ParseScalarEvents(std::string_view(whole).substr(0, cut));
    ASSERT_THAT(points, IsOk()) << cut;
    EXPECT_EQ(points->size(), 2u) << cut;
  }
}

TEST_F(ScalarEventReaderTest, DamagedRecordsAreDataLoss) {
  std::string data = base::ReadFile(WriteTwoEpochs()).value();
  std::string payload_flip = data;
  payload_flip[payload_flip.size() - 10] ^= 0x40;
  EXPECT_EQ(ParseScalarEvents(payload_flip).status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(ParseScalarEvents(payload_flip).status().message(), HasSubstr("CRC"));
  std::string length_flip = data;
  length_flip[0] ^= 0x01;
  EXPECT_EQ(ParseScalarEvents(length_flip).status().code(), absl::StatusCode::kDataLoss);
}

TEST_F(ScalarEventReaderTest, SymlinksAndOtherFilesAreNotRead) {
  const std::filesystem::path file = WriteTwoEpochs();
  const std::filesystem::path link = dir_.path() / "logs" / "events.out.tfevents.link";
  std::filesystem::create_symlink("/etc/passwd", link);
  EXPECT_FALSE(ReadScalarEventFile(link).ok());
  std::ofstream(dir_.path() / "logs" / "notes.txt") << "x";
  EXPECT_THAT(ListEventFiles(dir_.path() / "logs"), ElementsAre(file));
}

}  // namespace
}  // namespace trainpkg::sdk::serve
