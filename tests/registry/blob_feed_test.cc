// BlobFeed: a reader follows a blob's temporary file while the "pull" writes
// it, goes on through a restarted download and the rename into place, and
// gets the pull's error, or the consumer's cancel, instead of waiting
// forever. The pull side is driven by hand here, as PullImage drives it;
// tests/sdk/streamed_pull_test.cc runs the real pull.
#include "registry/blob_feed.h"

#include <filesystem>
#include <fstream>
#include <string>
#include <thread>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/digest_builder.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::StatusIs;

namespace trainpkg::registry {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

class BlobFeedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (size_t i = 0; i < 300000; ++i)
      content_.push_back(static_cast<char>('a' + (i * 7919) % 26));
    blob_.digest = oci::Sha256Digest(content_);
    blob_.size = static_cast<int64_t>(content_.size());
  }

  // Appends content_[from, to) to `file`, then tells the feed.
  void Append(const fs::path& file, size_t from, size_t to) {
    std::ofstream out(file, std::ios::binary | std::ios::app);
    out.write(content_.data() + from, static_cast<std::streamsize>(to - from));
    out.close();
    ASSERT_THAT(feed_.Received(blob_.digest, to), IsOk());
  }

  // Reads `source` to its end (small reads, as a decompressor's buffer).
  static absl::StatusOr<std::string> ReadAll(oci::ByteSource& source) {
    std::string out;
    char buffer[4096];
    for (;;) {
      absl::StatusOr<size_t> n = source.Read(buffer);
      if (!n.ok()) return n.status();
      if (*n == 0) return out;
      out.append(buffer, *n);
    }
  }

  ::trainpkg::testing::TempDir dir_;
  std::string content_;
  oci::Descriptor blob_;
  BlobFeed feed_;
};

TEST_F(BlobFeedTest, AReaderFollowsTheDownloadThenTheStoredBlob) {
  std::unique_ptr<oci::ByteSource> reader = feed_.Open(blob_);
  absl::StatusOr<std::string> read;
  // The reader starts before the download does, and must wait for it.
  std::thread consumer([&] { read = ReadAll(*reader); });
  const fs::path temp = dir_ / ".tmp-blob";
  const fs::path stored = dir_ / blob_.digest.hex();
  feed_.Downloading(blob_.digest, temp);
  for (size_t at = 0; at < content_.size(); at += 70000) {
    Append(temp, at, std::min(content_.size(), at + 70000));
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  fs::rename(temp, stored);
  feed_.Stored(blob_.digest, stored);
  consumer.join();
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(read->size(), content_.size());
  EXPECT_TRUE(*read == content_);
}

TEST_F(BlobFeedTest, ARestartedDownloadIsReadOnFromTheSameOffset) {
  std::unique_ptr<oci::ByteSource> reader = feed_.Open(blob_);
  const fs::path first = dir_ / ".tmp-1";
  feed_.Downloading(blob_.digest, first);
  Append(first, 0, 100000);
  std::string got(60000, '\0');
  size_t have = 0;
  while (have < got.size()) {
    absl::StatusOr<size_t> n = reader->Read(std::span<char>(got).subspan(have));
    ASSERT_THAT(n, IsOk());
    ASSERT_GT(*n, 0u);
    have += *n;
  }
  // The registry ignored Range: the download starts over in a new file
  // (the old one is gone), and the reader continues at byte 60000 once the
  // new file has got past it.
  fs::remove(first);
  const fs::path second = dir_ / ".tmp-2";
  feed_.Downloading(blob_.digest, second);
  absl::StatusOr<std::string> rest;
  std::thread consumer([&] { rest = ReadAll(*reader); });
  Append(second, 0, 50000);
  Append(second, 50000, content_.size());
  feed_.Stored(blob_.digest, second);
  consumer.join();
  ASSERT_THAT(rest, IsOk());
  EXPECT_TRUE(got + *rest == content_);
}

TEST_F(BlobFeedTest, ABlobAlreadyStoredIsReadFromItsFile) {
  const fs::path stored = dir_ / "stored";
  std::ofstream(stored, std::ios::binary) << content_;
  feed_.Stored(blob_.digest, stored);
  std::unique_ptr<oci::ByteSource> reader = feed_.Open(blob_);
  absl::StatusOr<std::string> read = ReadAll(*reader);
  ASSERT_THAT(read, IsOk());
  EXPECT_TRUE(*read == content_);
}

TEST_F(BlobFeedTest, ReadersGetThePullsErrorInsteadOfWaiting) {
  std::unique_ptr<oci::ByteSource> reader = feed_.Open(blob_);
  absl::StatusOr<std::string> read;
  std::thread consumer([&] { read = ReadAll(*reader); });
  const fs::path temp = dir_ / ".tmp";
  feed_.Downloading(blob_.digest, temp);
  Append(temp, 0, 1000);
  feed_.Finished(absl::UnavailableError("pulling blob x: connection reset"));
  consumer.join();
  EXPECT_THAT(read, StatusIs(absl::StatusCode::kUnavailable, HasSubstr("connection reset")));
  EXPECT_THAT(feed_.WaitForManifest(), StatusIs(absl::StatusCode::kUnavailable));
}

TEST_F(BlobFeedTest, APullThatSucceededWithoutTheBlobSaysSo) {
  feed_.Finished(absl::OkStatus());
  std::unique_ptr<oci::ByteSource> reader = feed_.Open(blob_);
  EXPECT_THAT(reader->Read(std::span<char>(content_)),
              StatusIs(absl::StatusCode::kFailedPrecondition, HasSubstr(blob_.digest.ToString())));
}

TEST_F(BlobFeedTest, CancelStopsThePullAtItsNextChunkAndWakesReaders) {
  std::unique_ptr<oci::ByteSource> reader = feed_.Open(blob_);
  absl::StatusOr<std::string> read;
  std::thread consumer([&] { read = ReadAll(*reader); });
  feed_.Downloading(blob_.digest, dir_ / ".tmp");
  feed_.Cancel(absl::ResourceExhaustedError("the disk is full"));
  consumer.join();
  EXPECT_THAT(read, StatusIs(absl::StatusCode::kResourceExhausted));
  // The pull stops as cancelled (its consumer failed, not it), naming why.
  EXPECT_THAT(
      feed_.Received(blob_.digest, 10),
      StatusIs(absl::StatusCode::kCancelled, "the pull's consumer gave up: the disk is full"));
}

TEST_F(BlobFeedTest, TheManifestIsHandedOverOnceChosen) {
  ChosenManifest chosen;
  chosen.descriptor.digest = oci::Sha256Digest("manifest");
  chosen.manifest.layers.push_back(blob_);
  std::thread pull([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
    feed_.ManifestChosen(chosen);
  });
  absl::StatusOr<ChosenManifest> got = feed_.WaitForManifest();
  pull.join();
  ASSERT_THAT(got, IsOk());
  EXPECT_EQ(got->descriptor.digest, chosen.descriptor.digest);
  ASSERT_EQ(got->manifest.layers.size(), 1u);
  EXPECT_EQ(got->manifest.layers[0].digest, blob_.digest);
}

}  // namespace
}  // namespace trainpkg::registry
