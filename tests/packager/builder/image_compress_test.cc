// CompressImage: an image built with uncompressed layers (what the local
// store keeps), compressed when it leaves, is byte for byte the image a
// compressed build gives; once per layer and options; damaged blobs refused.
#include "packager/builder/image_compress.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/builder/layer_key.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
using testing::Build;
using ::testing::HasSubstr;
using testing::MakeBaseLayout;
using testing::ScratchDir;
using testing::WriteFile;

class ImageCompressTest : public ::testing::Test {
 protected:
  void SetUp() override {
    MakeBaseLayout(dir_.path() / "base", "1");
    ctx_ = dir_.path() / "ctx";
    WriteFile(ctx_ / "trainer/task.py", "print('training')\n" + std::string(100'000, '#'));
    WriteFile(ctx_ / "data/weights.txt", std::string(300'000, 'w'));
    // An oci: base (gzip layer, kept as it is) and two layers of our own.
    WriteFile(ctx_ / "Dockerfile", "FROM oci:" + (dir_.path() / "base").string() +
                                       ":1\n"
                                       "COPY trainer /app/trainer/\n"
                                       "COPY data /data/\n"
                                       "ENTRYPOINT [\"python3\", \"-m\", \"trainer.task\"]\n");
  }

  BuiltImage BuildWith(const fs::path& home, LayerCompression compression,
                       std::optional<int> level = std::nullopt) {
    BuildRequest request;
    request.context_dir = ctx_;
    request.source_date_epoch = 1'700'000'000;
    request.compression = compression;
    request.compression_level = level;
    auto run = Build(home, request);
    EXPECT_THAT(run.image, IsOk());
    return run.image.value_or(BuiltImage{});
  }

  static oci::Layout Store(const fs::path& home) { return *oci::Layout::Open(home / "images"); }

  ScratchDir dir_;
  fs::path ctx_;
};

TEST_F(ImageCompressTest, CompressedLaterIsTheImageBuiltCompressed) {
  const fs::path home = dir_.path() / "home";
  const BuiltImage stored = BuildWith(home, LayerCompression::kNone);
  ASSERT_EQ(stored.manifest.layers.size(), 3u);
  EXPECT_EQ(stored.manifest.layers[0].media_type, oci::media_types::kOciLayerGzip) << "the base's";
  EXPECT_EQ(stored.manifest.layers[1].media_type, oci::media_types::kOciLayer);
  EXPECT_EQ(stored.manifest.layers[2].media_type, oci::media_types::kOciLayer);

  struct Case {
    LayerCompression compression;
    int level;
  };
  for (Case c : {Case{LayerCompression::kGzip, 6}, Case{LayerCompression::kGzip, 1},
                 Case{LayerCompression::kZstd, 19}}) {
    const BuiltImage direct =
        BuildWith(dir_.path() / ("direct" + std::to_string(static_cast<int>(c.compression)) + "-" +
                                 std::to_string(c.level)),
                  c.compression, c.level);
    LayerOptions options;
    options.compression = c.compression;
    ASSERT_THAT(SetCompressionLevel(c.level, &options), IsOk());
    std::vector<LayerCompressionStep> steps;
    auto compressed =
        CompressImage(Store(home), stored.manifest_descriptor, options, home / "build-cache",
                      [&](const LayerCompressionStep& step) { steps.push_back(step); });
    ASSERT_THAT(compressed, IsOk());
    EXPECT_EQ(compressed->manifest.digest, direct.manifest_descriptor.digest) << c.level;
    EXPECT_EQ(compressed->manifest.size, direct.manifest_descriptor.size);
    EXPECT_EQ(compressed->layers_compressed, 2);
    EXPECT_EQ(compressed->layers_cached, 0);
    ASSERT_EQ(steps.size(), 4u) << "start and done of each uncompressed layer";
    EXPECT_FALSE(steps[0].done);
    EXPECT_EQ(steps[0].diff_id, stored.manifest.layers[1].digest);
    EXPECT_EQ(steps[0].uncompressed_size, stored.manifest.layers[1].size);
    EXPECT_TRUE(steps[1].done);
    EXPECT_EQ(steps[1].compressed, direct.manifest.layers[1]);

    // Again: nothing compressed, the same manifest.
    auto again =
        CompressImage(Store(home), stored.manifest_descriptor, options, home / "build-cache");
    ASSERT_THAT(again, IsOk());
    EXPECT_EQ(again->manifest.digest, compressed->manifest.digest);
    EXPECT_EQ(again->layers_compressed, 0);
    EXPECT_EQ(again->layers_cached, 2);
  }
}

TEST_F(ImageCompressTest, CompressedImagesAndIndexesComeBackUnchanged) {
  const fs::path home = dir_.path() / "home";
  const BuiltImage gzip = BuildWith(home, LayerCompression::kGzip);
  auto same = CompressImage(Store(home), gzip.manifest_descriptor, {}, home / "build-cache");
  ASSERT_THAT(same, IsOk());
  EXPECT_EQ(same->manifest, gzip.manifest_descriptor);
  EXPECT_EQ(same->layers_compressed + same->layers_cached, 0);

  oci::Descriptor index = gzip.manifest_descriptor;
  index.media_type = oci::media_types::kOciImageIndex;
  auto unchanged = CompressImage(Store(home), index, {}, home / "build-cache");
  ASSERT_THAT(unchanged, IsOk());
  EXPECT_EQ(unchanged->manifest, index);

  LayerOptions uncompressed;
  uncompressed.compression = LayerCompression::kNone;
  auto none =
      CompressImage(Store(home), gzip.manifest_descriptor, uncompressed, home / "build-cache");
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument) << none.status();
}

TEST_F(ImageCompressTest, DamagedOrMissingLayersAreErrorsNamingTheLayer) {
  const fs::path home = dir_.path() / "home";
  const BuiltImage stored = BuildWith(home, LayerCompression::kNone);
  const oci::Digest layer = stored.manifest.layers[2].digest;
  const fs::path blob = Store(home).BlobPath(layer);
  ::trainpkg::testing::FlipByte(blob, 1000);
  auto damaged = CompressImage(Store(home), stored.manifest_descriptor, {}, home / "build-cache");
  EXPECT_EQ(damaged.status().code(), absl::StatusCode::kDataLoss) << damaged.status();
  EXPECT_THAT(std::string(damaged.status().message()), HasSubstr(layer.ToString()));

  fs::remove(blob);
  auto missing = CompressImage(Store(home), stored.manifest_descriptor, {}, home / "build-cache");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound) << missing.status();
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr(layer.ToString()));
}

// Every option that changes compressed bytes changes the keys: of the
// compressed-layer cache, and of RUN layers (whose v1 key left out the zstd
// level, so `--compression zstd --compression-level 19` reused a level-3 RUN layer).
TEST(CompressionKeysTest, EveryCompressionSettingChangesTheKeys) {
  const oci::Digest diff_id = *oci::Digest::Parse(
      "sha256:0000000000000000000000000000000000000000000000000000000000000001");
  std::vector<LayerOptions> variants(6);
  variants[1].gzip_level = 1;
  variants[2].gzip_block_size = 1 << 16;
  variants[3].compression = LayerCompression::kZstd;
  variants[4].compression = LayerCompression::kZstd;
  variants[4].zstd_level = 19;
  variants[5].compression = LayerCompression::kNone;
  std::vector<std::string> compressed, run;
  for (const LayerOptions& options : variants) {
    compressed.push_back(CompressedLayerKey(diff_id, options));
    run.push_back(RunLayerKey("chain", "RUN make", {"/bin/sh", "-c", "make"}, {"PATH=/bin"}, "/",
                              "", options));
  }
  for (std::vector<std::string>* keys : {&compressed, &run}) {
    std::sort(keys->begin(), keys->end());
    EXPECT_EQ(std::unique(keys->begin(), keys->end()), keys->end());
  }
  EXPECT_NE(CompressedLayerKey(diff_id, {}),
            CompressedLayerKey(*oci::Digest::Parse("sha256:00000000000000000000000000000000000000"
                                                   "00000000000000000000000002"),
                               {}));
  EXPECT_EQ(CompressedLayerKey(diff_id, {}), CompressedLayerKey(diff_id, LayerOptions{}));
}

}  // namespace
}  // namespace trainpkg::packager::builder
