#include "packager/unpack/rootfs_cache.h"

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_manifest.h"
#include "tests/packager/unpack/layer_tar.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

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
    ASSERT_THAT(layout, IsOk());
    layout_.emplace(*layout);
  }
  void TearDown() override { fs::remove_all(dir_); }

  oci::LayoutImage MakeImage(const LayerTar& tar) { return MakeImage(StoreLayer(*layout_, tar)); }
  oci::LayoutImage MakeImage(const testing::StoredLayer& layer) {
    return MakeImage(std::vector<testing::StoredLayer>{layer});
  }
  oci::LayoutImage MakeImage(const std::vector<testing::StoredLayer>& layers) {
    oci::LayoutImage image;
    image.config = oci::ImageConfig{};
    image.config->architecture = "amd64";
    image.config->os = "linux";
    for (const testing::StoredLayer& layer : layers) {
      image.config->rootfs.diff_ids.push_back(layer.diff_id);
      image.manifest.layers.push_back(layer.descriptor);
    }
    image.manifest.config = *layout_->WriteBlob(oci::SerializeImageConfig(*image.config),
                                                oci::media_types::kOciImageConfig);
    image.descriptor = *layout_->WriteBlob(oci::SerializeImageManifest(image.manifest),
                                           oci::media_types::kOciImageManifest);
    return image;
  }

  // Rootfs entries and temporaries; not the entries' lock files (.locks/).
  size_t Entries() const {
    size_t n = 0;
    for (const fs::directory_entry& entry : fs::directory_iterator(dir_ / "cache")) {
      if (entry.path().filename() != ".locks") ++n;
    }
    return n;
  }

  fs::path dir_;
  std::optional<oci::Layout> layout_;
};

TEST_F(RootfsCacheTest, UnpacksOncePerLayerChain) {
  RootfsCache cache(dir_ / "cache");
  oci::LayoutImage image = MakeImage(LayerTar().File("hello", "world"));
  absl::StatusOr<fs::path> first = cache.Get(*layout_, image);
  ASSERT_THAT(first, IsOk());
  // One layer: its ChainID is its diff_id.
  EXPECT_EQ(first->filename().string(), "sha256-" + image.config->rootfs.diff_ids[0].hex());
  EXPECT_TRUE(fs::exists(*first / "hello"));
  fs::remove(*first / "hello");  // a second Get does not unpack again
  absl::StatusOr<fs::path> second = cache.Get(*layout_, image);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(*second, *first);
  EXPECT_FALSE(fs::exists(*second / "hello"));
}

// The same image pushed to another registry: another base.name annotation,
// so another manifest digest, the same config and layers. (Keyed by the
// manifest, each fresh registry of tests/framework added a 1.2 GB copy of
// the pytorch-cpu rootfs.)
TEST_F(RootfsCacheTest, TheSameImageUnderAnotherManifestSharesItsRootfs) {
  RootfsCache cache(dir_ / "cache");
  oci::LayoutImage image = MakeImage(LayerTar().File("hello", "world"));
  oci::LayoutImage elsewhere = image;
  elsewhere.manifest.annotations["org.opencontainers.image.base.name"] = "127.0.0.1:5001/b:1";
  elsewhere.descriptor = *layout_->WriteBlob(oci::SerializeImageManifest(elsewhere.manifest),
                                             oci::media_types::kOciImageManifest);
  ASSERT_NE(elsewhere.descriptor.digest, image.descriptor.digest);
  absl::StatusOr<fs::path> first = cache.Get(*layout_, image);
  ASSERT_THAT(first, IsOk());
  absl::StatusOr<fs::path> second = cache.Get(*layout_, elsewhere);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(*second, *first);
  EXPECT_EQ(Entries(), 1u);
}

// A builder's stage base names its layers and diff_ids but no config blob
// (packager/builder BaseRootfs). Keyed by the config digest, every such base
// got the same (empty) key: a RUN FROM a second image ran in the first
// one's rootfs (RunStepTest.NetworkNoneFailsLookupsFastAndReachesNothing
// found /usr/local/bin/curl missing).
TEST_F(RootfsCacheTest, ImagesWithoutAConfigDigestGetTheirOwnRootfs) {
  RootfsCache cache(dir_ / "cache");
  oci::LayoutImage one = MakeImage(LayerTar().File("one", "1"));
  oci::LayoutImage two = MakeImage(LayerTar().File("two", "2"));
  one.manifest.config = {};
  two.manifest.config = {};
  absl::StatusOr<fs::path> first = cache.Get(*layout_, one);
  absl::StatusOr<fs::path> second = cache.Get(*layout_, two);
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_NE(*first, *second);
  EXPECT_TRUE(fs::exists(*second / "two"));
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
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(*result, *results[0]);
  }
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(RootfsCacheTest, ConcurrentGetsOfANewImageUnpackItOnce) {
  // Two jobs starting on the same image that is not yet unpacked: one
  // unpacks, the other waits for it (the entry's lock) and takes its rootfs.
  RootfsCache cache(dir_ / "cache");
  oci::LayoutImage image = MakeImage(std::vector<testing::StoredLayer>{
      StoreLayer(*layout_, LayerTar().File("base/lib.so", std::string(200000, 'x'))),
      StoreLayer(*layout_, LayerTar().File("app/main", "run"))});
  std::atomic<int> opened{0};
  BlobOpener layout_blobs = LayoutBlobs(*layout_);
  BlobOpener counting = [&](const oci::Descriptor& blob) {
    ++opened;
    // Slow enough that the two Gets overlap.
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
    return layout_blobs(blob);
  };
  std::vector<absl::StatusOr<fs::path>> results(3, absl::UnknownError("not run"));
  std::vector<std::thread> threads;
  for (size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] { results[i] = cache.Get(image, counting); });
  }
  for (std::thread& thread : threads) thread.join();
  for (const auto& result : results) {
    ASSERT_THAT(result, IsOk());
    EXPECT_EQ(*result, *results[0]);
  }
  EXPECT_EQ(opened.load(), 2) << "each layer read once, by one of the three";
  EXPECT_EQ(Entries(), 1u);
}

TEST_F(RootfsCacheTest, AFailedUnpackLeavesNothing) {
  RootfsCache cache(dir_ / "cache");
  absl::StatusOr<fs::path> result = cache.Get(*layout_, MakeImage(LayerTar().File("../x", "")));
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(result.status().message()), HasSubstr("entry ../x"));
  EXPECT_EQ(Entries(), 0u);
}

// Issue 16 finding 17: setuid files in the cache are inert for local users.
TEST_F(RootfsCacheTest, ClearsSetIdBitsOfFiles) {
  RootfsCache cache(dir_ / "cache");
  absl::StatusOr<fs::path> root = cache.Get(
      *layout_,
      MakeImage(
          LayerTar().File("bin/su", "x", 04755).File("bin/wall", "y", 02755).Dir("shared", 02775)));
  ASSERT_THAT(root, IsOk());
  struct stat st {};
  ASSERT_EQ(::stat((*root / "bin/su").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((*root / "bin/wall").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0755u);
  ASSERT_EQ(::stat((*root / "shared").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 02775u) << "a directory's setgid (group inheritance) is kept";
}

// Issue 16 finding 10: a decompression bomb (200 MB of zeros in a ~200 KB
// layer) ends with a clear error, bounded memory and nothing in the cache.
TEST_F(RootfsCacheTest, DecompressionBombEndsWithAClearErrorAndLeavesNothing) {
  constexpr int64_t kBomb = 200 << 20;
  testing::StoredLayer bomb = testing::StoreZeroFileLayer(*layout_, "zeros", kBomb);
  ASSERT_LT(bomb.descriptor.size, 1 << 20);
  oci::LayoutImage image = MakeImage(bomb);
  UnpackOptions options;
  options.limits.max_bytes = 32 << 20;
  RootfsCache cache(dir_ / "cache", options);
  trainpkg::testing::ChildRun run = trainpkg::testing::RunInChildMeasured([&] {
    absl::StatusOr<fs::path> result = cache.Get(*layout_, image);
    if (result.ok()) return 10;
    std::string message(result.status().message());
    std::fprintf(stderr, "%s\n", message.c_str());
    bool clear = result.status().code() == absl::StatusCode::kResourceExhausted &&
                 message.find(bomb.descriptor.digest.ToString()) != std::string::npos &&
                 message.find(std::to_string(32 << 20) + " bytes") != std::string::npos;
    return clear ? 0 : 11;
  });
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_LE(run.peak_rss_kib, 256 * 1024);
  EXPECT_EQ(Entries(), 0u) << "no rootfs and no temporary left in the cache";
}

struct stat Lstat(const fs::path& path) {
  struct stat st {};
  EXPECT_EQ(::lstat(path.c_str(), &st), 0) << path;
  return st;
}

std::string Read(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A trainer image FROM a cached base (the framework test's pytorch-cpu
// rootfs was copied in full for each of its three images, 1.3 GB each, and
// CI ran out of disk): unchanged files are the base's inodes, what the
// layers above replace or delete is changed in the new entry only.
TEST_F(RootfsCacheTest, AnImageOnACachedBaseSharesTheBasesFiles) {
  RootfsCache cache(dir_ / "cache");
  testing::StoredLayer base_layer = StoreLayer(*layout_, LayerTar()
                                                             .Dir("lib", 0755)
                                                             .File("lib/torch.so", "weights")
                                                             .File("etc/conf", "old")
                                                             .File("etc/gone", "x")
                                                             .Dir("private", 0750)
                                                             .Symlink("lib/alias.so", "torch.so"));
  testing::StoredLayer app_layer =
      StoreLayer(*layout_, LayerTar().File("etc/conf", "new").File("etc/.wh.gone", ""));
  absl::StatusOr<fs::path> base = cache.Get(*layout_, MakeImage(base_layer));
  ASSERT_TRUE(base.ok()) << base.status();
  absl::StatusOr<fs::path> app = cache.Get(*layout_, MakeImage({base_layer, app_layer}));
  ASSERT_TRUE(app.ok()) << app.status();
  ASSERT_NE(*app, *base);

  EXPECT_EQ(Lstat(*app / "lib/torch.so").st_ino, Lstat(*base / "lib/torch.so").st_ino);
  EXPECT_EQ(Lstat(*app / "lib/alias.so").st_ino, Lstat(*base / "lib/alias.so").st_ino);
  EXPECT_EQ(fs::read_symlink(*app / "lib/alias.so"), "torch.so");
  EXPECT_EQ(Read(*app / "etc/conf"), "new");
  EXPECT_EQ(Read(*base / "etc/conf"), "old");
  EXPECT_FALSE(fs::exists(*app / "etc/gone"));
  EXPECT_TRUE(fs::exists(*base / "etc/gone"));
  // Directories are the entry's own, with the base's attributes.
  struct stat base_dir = Lstat(*base / "private");
  struct stat app_dir = Lstat(*app / "private");
  EXPECT_NE(app_dir.st_ino, base_dir.st_ino);
  EXPECT_EQ(app_dir.st_mode & 07777, 0750u);
  EXPECT_EQ(app_dir.st_mtim.tv_sec, base_dir.st_mtim.tv_sec);
  EXPECT_EQ(Lstat(*app).st_mode & 07777, Lstat(*base).st_mode & 07777);
  EXPECT_EQ(Entries(), 2u) << "no temporary left";
}

// Two versions of a trainer on one base, pulled (no build unpacked the
// base alone): the first keeps the prefix below its small top layers, and
// the second starts from it.
TEST_F(RootfsCacheTest, TheSecondVersionOfAnImageStartsFromTheFirstsBase) {
  std::string weights;
  for (int i = 0; i < 50000; ++i) weights += std::to_string(i * 7919 % 10007);
  testing::StoredLayer base_layer =
      StoreLayer(*layout_, LayerTar().File("lib/torch.so", weights));
  testing::StoredLayer v1 = StoreLayer(*layout_, LayerTar().File("app/train.py", "v1"));
  testing::StoredLayer v2 = StoreLayer(*layout_, LayerTar().File("app/train.py", "v2"));
  ASSERT_LT(v1.descriptor.size, base_layer.descriptor.size);
  RootfsCache cache(dir_ / "cache", {}, static_cast<uint64_t>(base_layer.descriptor.size));

  absl::StatusOr<fs::path> first = cache.Get(*layout_, MakeImage({base_layer, v1}));
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(Entries(), 2u) << "the image and its base prefix";
  EXPECT_TRUE(fs::is_directory(dir_ / "cache" / RootfsCache::EntryName(base_layer.diff_id)));
  absl::StatusOr<fs::path> second = cache.Get(*layout_, MakeImage({base_layer, v2}));
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(Entries(), 3u);
  EXPECT_EQ(Lstat(*second / "lib/torch.so").st_ino, Lstat(*first / "lib/torch.so").st_ino);
  EXPECT_EQ(Read(*second / "app/train.py"), "v2");
  EXPECT_EQ(Read(*first / "app/train.py"), "v1");
}

// Below the threshold no prefix is kept: small images stay one entry.
TEST_F(RootfsCacheTest, ImagesOfSmallLayersKeepNoPrefix) {
  RootfsCache cache(dir_ / "cache");
  testing::StoredLayer one = StoreLayer(*layout_, LayerTar().File("a", "1"));
  testing::StoredLayer two = StoreLayer(*layout_, LayerTar().File("b", "2"));
  absl::StatusOr<fs::path> root = cache.Get(*layout_, MakeImage({one, two}));
  ASSERT_TRUE(root.ok()) << root.status();
  EXPECT_EQ(Entries(), 1u);
  EXPECT_TRUE(fs::exists(*root / "a"));
  EXPECT_TRUE(fs::exists(*root / "b"));
}

}  // namespace
}  // namespace trainpkg::packager::unpack
