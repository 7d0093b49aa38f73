#include "packager/unpack/rootfs_cache.h"

#include <unistd.h>

#include <filesystem>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_manifest.h"
#include "tests/packager/unpack/layer_tar.h"

namespace trainpkg::packager::unpack {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::LayerTar;
using testing::StoreLayer;

class RootfsCacheTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::path(::testing::TempDir()) /
           ("rootfs-cache-" + std::to_string(::getpid()) + "-" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    auto layout = oci::Layout::Create(dir_ / "layout");
    ASSERT_TRUE(layout.ok());
    layout_.emplace(*layout);
  }
  void TearDown() override { fs::remove_all(dir_); }

  oci::LayoutImage MakeImage(const LayerTar& tar) {
    testing::StoredLayer layer = StoreLayer(*layout_, tar);
    oci::LayoutImage image;
    image.config = oci::ImageConfig{};
    image.config->architecture = "amd64";
    image.config->os = "linux";
    image.config->rootfs.diff_ids = {layer.diff_id};
    image.manifest.layers = {layer.descriptor};
    image.manifest.config = *layout_->WriteBlob(oci::SerializeImageConfig(*image.config),
                                                oci::media_types::kOciImageConfig);
    image.descriptor = *layout_->WriteBlob(oci::SerializeImageManifest(image.manifest),
                                           oci::media_types::kOciImageManifest);
    return image;
  }

  size_t Entries() const {
    return static_cast<size_t>(
        std::distance(fs::directory_iterator(dir_ / "cache"), fs::directory_iterator()));
  }

  fs::path dir_;
  std::optional<oci::Layout> layout_;
};

TEST_F(RootfsCacheTest, UnpacksOncePerManifestDigest) {
  RootfsCache cache(dir_ / "cache");
  oci::LayoutImage image = MakeImage(LayerTar().File("hello", "world"));
  absl::StatusOr<fs::path> first = cache.Get(*layout_, image);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->filename().string(), "sha256-" + image.descriptor.digest.hex());
  EXPECT_TRUE(fs::exists(*first / "hello"));
  fs::remove(*first / "hello");  // a second Get does not unpack again
  absl::StatusOr<fs::path> second = cache.Get(*layout_, image);
  ASSERT_TRUE(second.ok());
  EXPECT_EQ(*second, *first);
  EXPECT_FALSE(fs::exists(*second / "hello"));
}

TEST_F(RootfsCacheTest, ConcurrentGetsAgreeAndLeaveNoTemporaries) {
  RootfsCache cache(dir_ / "cache");
  oci::LayoutImage image = MakeImage(LayerTar().File("a/b", "c"));
  std::vector<absl::StatusOr<fs::path>> results(4, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = cache.Get(*layout_, image); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& result : results) {
    ASSERT_TRUE(result.ok()) << result.status();
    EXPECT_EQ(*result, *results[0]);
  }
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(RootfsCacheTest, AFailedUnpackLeavesNothing) {
  RootfsCache cache(dir_ / "cache");
  absl::StatusOr<fs::path> result = cache.Get(*layout_, MakeImage(LayerTar().File("../x", "")));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("entry ../x"));
  EXPECT_EQ(Entries(), 0u);
}

}  // namespace
}  // namespace trainpkg::packager::unpack
