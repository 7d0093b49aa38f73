#include "registry/progress_renderer.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/digest_builder.h"
#include "tests/registry/fakes.h"

namespace trainpkg::registry {
namespace {

using testing::FakeClock;
using ::testing::HasSubstr;

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
  TtyProgress progress(out, TransferDirection::kPush, clock, absl::Milliseconds(100));
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

}  // namespace
}  // namespace trainpkg::registry
