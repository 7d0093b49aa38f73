#include "registry/progress_renderer.h"

#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/digest_builder.h"
#include "tests/http/scripted_transport.h"
#include "tests/test_util/fake_clock.h"

namespace trainpkg::registry {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;
using trainpkg::testing::FakeClock;

oci::Descriptor Blob(std::string_view content, int64_t size) {
  oci::Descriptor blob;
  blob.media_type = "application/vnd.oci.image.layer.v1.tar";
  blob.digest = oci::Sha256Digest(content);
  blob.size = size;
  return blob;
}

TEST(ProgressRendererTest, FormatsByteCountsLikeDocker) {
  EXPECT_EQ(FormatByteCount(0), "0B");
  EXPECT_EQ(FormatByteCount(999), "999B");
  EXPECT_EQ(FormatByteCount(1500), "1.5kB");
  EXPECT_EQ(FormatByteCount(12'345'678), "12.3MB");
  EXPECT_EQ(FormatByteCount(2'000'000'000), "2.0GB");
}

TEST(ProgressRendererTest, PlainLinesSayWhatHappenedToEachBlob) {
  std::ostringstream out;
  FakeClock clock;
  PlainProgress progress(out, TransferDirection::kPush, clock);
  oci::Descriptor big = Blob("big", 4'000'000), base = Blob("base", 10), there = Blob("there", 5);
  std::string big_id = big.digest.hex().substr(0, 12);
  progress.Started(big);
  progress.Advanced(big, 2'000'000);
  clock.Advance(absl::Seconds(2));
  progress.Finished(big, BlobAction::kPushed, "");
  progress.Finished(base, BlobAction::kMounted, "team/base");
  progress.Finished(there, BlobAction::kExists, "");
  EXPECT_EQ(out.str(), big_id + ": Pushing 4.0MB\n" + big_id +
                           ": Pushed 4.0MB in 2.0s (2.0MB/s)\n" + base.digest.hex().substr(0, 12) +
                           ": Mounted from team/base\n" + there.digest.hex().substr(0, 12) +
                           ": Layer already exists\n");
}

TEST(ProgressRendererTest, PullWordsDiffer) {
  std::ostringstream out;
  FakeClock clock;
  PlainProgress progress(out, TransferDirection::kPull, clock);
  progress.Finished(Blob("x", 1), BlobAction::kExists, "");
  EXPECT_THAT(out.str(), HasSubstr(": Already exists\n"));
}

TEST(ProgressRendererTest, TtyRedrawsOneLinePerBlobInPlace) {
  std::ostringstream out;
  FakeClock clock;
  TtyProgress progress(
      out, TransferDirection::kPush, clock, [] { return size_t{200}; }, absl::Milliseconds(100));
  oci::Descriptor a = Blob("a", 1000), b = Blob("b", 2000);
  progress.Started(a);  // draws 1 line
  progress.Started(b);  // up 1, draws 2
  clock.Advance(absl::Seconds(1));
  progress.Advanced(b, 1000);  // up 2, draws 2
  std::string before = out.str();
  progress.Advanced(b, 1500);  // within 100 ms: no redraw
  EXPECT_EQ(out.str(), before);
  progress.Finished(a, BlobAction::kPushed, "");  // a state change always redraws
  std::string text = out.str();
  EXPECT_THAT(text, HasSubstr("\x1b[1A"));
  EXPECT_THAT(text, HasSubstr("\x1b[2A"));
  EXPECT_THAT(text, HasSubstr(b.digest.hex().substr(0, 12) + ": Pushing [====================>"));
  EXPECT_THAT(text, HasSubstr("1.5kB/2.0kB"));
  EXPECT_THAT(text, HasSubstr("1.0kB/s"));
  size_t last = text.rfind("\x1b[2A");
  std::string final_screen = text.substr(last);
  EXPECT_THAT(final_screen, HasSubstr(a.digest.hex().substr(0, 12) + ": Pushed\n"));
}

// The rows a TtyProgress drew: its output split at newlines, with the
// cursor-up and clear-line sequences it writes before them taken out.
std::vector<std::string> Rows(const std::string& output) {
  std::vector<std::string> rows;
  std::istringstream in(std::regex_replace(output, std::regex("\x1b\\[[0-9]*[AK]|\r"), ""));
  for (std::string row; std::getline(in, row);) rows.push_back(row);
  return rows;
}

TEST(ProgressRendererTest, TtyLinesFitSixtyEightyAndTwoHundredColumns) {
  // The longest line there is: a pull ("Downloading") of gigabytes, with a rate.
  oci::Descriptor big = Blob("big", 987'654'321'000);
  for (size_t columns : {40, 60, 80, 200}) {
    std::ostringstream out;
    FakeClock clock;
    TtyProgress progress(out, TransferDirection::kPull, clock, [columns] { return columns; });
    progress.Started(big);
    clock.Advance(absl::Seconds(3));
    progress.Advanced(big, 123'456'789'000);
    progress.Finished(Blob("mounted", 1), BlobAction::kMounted,
                      "a/very/long/repository/name/that/goes/on/and/on/and/on/for/ever");
    for (const std::string& row : Rows(out.str())) {
      EXPECT_LE(row.size(), columns - 1) << columns << " columns: \"" << row << "\"";
    }
    const std::string text = out.str();
    if (columns >= 80) {
      EXPECT_THAT(text, HasSubstr("123.5GB/987.7GB  41.2GB/s")) << columns;
      EXPECT_THAT(text, HasSubstr("[===")) << columns;
    }
    if (columns == 200) {
      EXPECT_THAT(text, HasSubstr("[====>" + std::string(35, ' ') + "]"));
    }
    if (columns == 40) {
      EXPECT_THAT(text, AllOf(Not(HasSubstr("[=")), Not(HasSubstr("[>"))));  // no room for a bar
    }
  }
}

TEST(ProgressRendererTest, TtyFollowsAResizedWindowAtTheNextRedraw) {
  std::ostringstream out;
  FakeClock clock;
  size_t columns = 200;
  TtyProgress progress(out, TransferDirection::kPush, clock, [&columns] { return columns; });
  oci::Descriptor blob = Blob("blob", 50'000'000);
  progress.Started(blob);
  EXPECT_THAT(out.str(), HasSubstr("[>" + std::string(39, ' ') + "]"));  // the full 40-cell bar
  columns = 60;  // the window was made narrower (SIGWINCH)
  out.str("");
  clock.Advance(absl::Seconds(1));
  progress.Advanced(blob, 25'000'000);
  ASSERT_FALSE(out.str().empty());
  for (const std::string& row : Rows(out.str())) EXPECT_LE(row.size(), 59u) << row;
}

}  // namespace
}  // namespace trainpkg::registry
