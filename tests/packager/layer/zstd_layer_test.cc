// zstd layers (LayerCompression::kZstd) and symlink entries: the blob is one
// zstd frame an independent reader (libzstd's decoder) turns back into the
// tar whose sha256 is diff_id; the bytes do not depend on the thread count.
#include <zstd.h>

#include <filesystem>
#include <random>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/layer/layer_writer.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager {
namespace {

using testing::ReadTar;
using testing::Sha256;
using testing::StringSink;
using testing::TempDir;
using testing::WriteFile;

std::string Unzstd(const std::string& frame) {
  std::string out;
  ZSTD_DStream* stream = ZSTD_createDStream();
  ZSTD_inBuffer in{frame.data(), frame.size(), 0};
  std::string buffer(ZSTD_DStreamOutSize(), '\0');
  size_t rc = 1;
  while (in.pos < in.size) {
    ZSTD_outBuffer o{buffer.data(), buffer.size(), 0};
    rc = ZSTD_decompressStream(stream, &o, &in);
    if (ZSTD_isError(rc)) {
      ADD_FAILURE() << "zstd: " << ZSTD_getErrorName(rc);
      break;
    }
    out.append(buffer.data(), o.pos);
  }
  EXPECT_EQ(rc, 0u) << "the frame did not end";
  ZSTD_freeDStream(stream);
  return out;
}

TEST(ZstdLayerTest, OneFrameIndependentOfThreads) {
  TempDir dir;
  // 9 MB of words: more than two of the writer's 4 MB jobs.
  std::mt19937 rng(7);
  std::string text;
  while (text.size() < (size_t{9} << 20)) text += "word" + std::to_string(rng() % 5000) + " ";
  WriteFile(dir.path() / "ctx/big.txt", text);
  LayerSource source{dir.path() / "ctx",
                     {LayerEntry::Copy("big.txt", "/data/big.txt"),
                      LayerEntry::Symlink("/data/current", "big.txt")}};
  LayerOptions options;
  options.compression = LayerCompression::kZstd;
  options.source_date_epoch = 1'700'000'000;
  std::string blobs[2];
  absl::StatusOr<LayerResult> results[2];
  for (int i = 0; i < 2; ++i) {
    options.threads = i == 0 ? 1 : 4;
    StringSink sink;
    results[i] = WriteLayer(source, options, &sink);
    ASSERT_THAT(results[i], IsOk());
    blobs[i] = std::move(sink.bytes);
  }
  EXPECT_EQ(blobs[0], blobs[1]);
  EXPECT_EQ(results[0]->digest.ToString(), Sha256(blobs[0]));
  EXPECT_EQ(results[0]->size, static_cast<int64_t>(blobs[0].size()));
  EXPECT_LT(blobs[0].size(), text.size() / 2);
  ASSERT_GE(blobs[0].size(), 4u);
  EXPECT_EQ(blobs[0].substr(0, 4), std::string("\x28\xb5\x2f\xfd", 4));  // zstd magic
  const std::string tar = Unzstd(blobs[0]);
  EXPECT_EQ(Sha256(tar), results[0]->diff_id.ToString());
  auto entries = ReadTar(tar);
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].name, "data/big.txt");
  EXPECT_EQ(entries[1].content, text);
  EXPECT_EQ(entries[2].name, "data/current");
  EXPECT_EQ(entries[2].type, 'l');
  EXPECT_EQ(entries[2].link, "big.txt");
}

TEST(ZstdLayerTest, BadLevelAndEmptySymlinkAreErrors) {
  TempDir dir;
  std::filesystem::create_directories(dir.path() / "ctx");
  LayerOptions options;
  options.compression = LayerCompression::kZstd;
  options.zstd_level = 20;
  StringSink sink;
  auto bad_level = WriteLayer(LayerSource{dir.path() / "ctx", {}}, options, &sink);
  EXPECT_EQ(bad_level.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(bad_level.status().message(), ::testing::HasSubstr("zstd level 20 is outside 1..19"));
  options.zstd_level = 3;
  auto empty =
      WriteLayer(LayerSource{dir.path() / "ctx", {LayerEntry::Symlink("/x", "")}}, options, &sink);
  EXPECT_EQ(empty.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(empty.status().message(), ::testing::HasSubstr("\"/x\" has an empty target"));
}

}  // namespace
}  // namespace trainpkg::packager
