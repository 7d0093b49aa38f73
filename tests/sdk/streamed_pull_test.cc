// The cold path of a job whose image is not local (issue 20): the image is
// pulled from a real docker-registry and each layer is unpacked into the
// rootfs cache while it downloads (sdk::internal::PullInFlight feeding
// RootfsCache::Get, as the local backend does). Faults come from a proxy
// between the client and the registry: a connection reset mid-layer resumes
// with Range and yields the same digests; a corrupted byte is caught by the
// digest and leaves nothing in the cache; a full disk (a small tmpfs) gives
// a clear error and a consistent cache; two jobs starting on the same new
// image unpack it once.
#include <sys/mount.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "http/curl_transport.h"
#include "packager/builder/store_lock.h"
#include "packager/unpack/rootfs_cache.h"
#include "registry/image_puller.h"
#include "registry/image_pusher.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/layout.h"
#include "registry/oci/media_types.h"
#include "registry/registry_client.h"
#include "sdk/internal/image_resolver.h"
#include "tests/packager/unpack/layer_tar.h"
#include "tests/registry/fault_proxy.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::StatusIs;

namespace trainpkg::sdk::internal {
namespace {

namespace fs = std::filesystem;
using packager::builder::StoreLock;
using packager::unpack::BlobOpener;
using packager::unpack::RootfsCache;
using packager::unpack::testing::LayerTar;
using packager::unpack::testing::StoredLayer;
using registry::testing::FaultKind;
using registry::testing::FaultProxy;
using registry::testing::PseudoRandomBytes;
using registry::testing::RegistryServer;
using ::testing::HasSubstr;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// What one job's image preparation saw.
struct Outcome {
  absl::Status pulled;
  absl::StatusOr<fs::path> rootfs = absl::UnknownError("not run");
};

class StreamedPullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(server_.Start({}), IsOk());
    ASSERT_THAT(proxy_.Start(server_.host()), IsOk());
    dir_ = server_.dir() / "work";
    fs::create_directories(dir_);
    http::CurlTransportOptions curl;
    curl.stall_timeout = absl::Seconds(2);  // the proxy's stalls last longer
    registry::RegistryClientOptions options;
    options.transport = http::MakeCurlTransport(curl);
    options.clock = &clock_;  // backoffs recorded, not slept
    client_ = std::make_unique<registry::RegistryClient>(options);

    // Three gzip layers of files that do not compress away: a base, an
    // application over it that deletes one base file (whiteout), a small top.
    auto source = oci::Layout::Create(dir_ / "source");
    ASSERT_THAT(source, IsOk());
    base_a_ = PseudoRandomBytes(700 * 1024, 1);
    model_ = PseudoRandomBytes(600 * 1024, 3);
    layers_ = {
        packager::unpack::testing::StoreLayer(
            *source, LayerTar()
                         .File("base/a.bin", base_a_)
                         .File("base/b.bin", PseudoRandomBytes(500 * 1024, 2))),
        packager::unpack::testing::StoreLayer(
            *source, LayerTar().File("app/model.bin", model_).File("base/.wh.b.bin", "")),
        packager::unpack::testing::StoreLayer(*source, LayerTar().File("app/main", "train")),
    };
    oci::ImageConfig config;
    config.architecture = "amd64";
    config.os = "linux";
    oci::ImageManifest manifest;
    for (const StoredLayer& layer : layers_) {
      config.rootfs.diff_ids.push_back(layer.diff_id);
      manifest.layers.push_back(layer.descriptor);
    }
    auto config_blob =
        source->WriteBlob(oci::SerializeImageConfig(config), oci::media_types::kOciImageConfig);
    ASSERT_THAT(config_blob, IsOk());
    manifest.config = *config_blob;
    auto root = source->WriteBlob(oci::SerializeImageManifest(manifest),
                                  oci::media_types::kOciImageManifest);
    ASSERT_THAT(root, IsOk());
    ASSERT_THAT(source->Tag(*root, "v1"), IsOk());
    // Pushed straight to the registry, not through the proxy.
    registry::RegistryClient direct{registry::RegistryClientOptions{}};
    auto target = registry::ParseReference(server_.host() + "/app:v1");
    ASSERT_THAT(target, IsOk());
    ASSERT_THAT(registry::PushImage(direct, *source, "v1", *target, {}), IsOk());
  }

  registry::Reference Through(const std::string& repository_and_tag) const {
    auto reference = registry::ParseReference(proxy_.host() + "/" + repository_and_tag);
    EXPECT_THAT(reference, IsOk());
    return *reference;
  }

  ImagePuller Puller() {
    return [this](const registry::Reference& reference, const oci::Layout& store,
                  const std::string& tag, registry::BlobFeed* feed) {
      registry::PullOptions options;
      options.feed = feed;
      return registry::PullImage(*client_, reference, store, tag, options).status();
    };
  }

  // What the local backend does for an image it must pull: the pull runs
  // while the rootfs cache unpacks each layer as it arrives. `opened` (may be
  // null) counts the layers the unpack asked for; `on_open` runs at each.
  Outcome PullAndUnpack(const fs::path& store_dir, const RootfsCache& cache,
                        std::atomic<int>* opened = nullptr,
                        std::function<void(const oci::Descriptor&)> on_open = nullptr) {
    Outcome outcome;
    auto store = oci::Layout::Create(store_dir);
    if (!store.ok()) return {store.status(), store.status()};
    auto lock = StoreLock::ForCollection(store->root(), StoreLock::Mode::kShared);
    if (!lock.ok()) return {lock.status(), lock.status()};
    PullInFlight pull(Puller(), Through("app:v1"), *store, "v1", *std::move(lock));
    absl::StatusOr<oci::LayoutImage> image = pull.WaitForImage();
    if (!image.ok()) {
      outcome.rootfs = image.status();
      outcome.pulled = pull.Wait();
      return outcome;
    }
    BlobOpener blobs = pull.Blobs();
    BlobOpener counted = [&](const oci::Descriptor& blob) {
      if (opened != nullptr) ++*opened;
      if (on_open) on_open(blob);
      return blobs(blob);
    };
    outcome.rootfs = cache.Get(*image, counted);
    if (!outcome.rootfs.ok()) pull.Cancel(outcome.rootfs.status());
    outcome.pulled = pull.Wait();
    return outcome;
  }

  void ExpectTheImagesFiles(const fs::path& rootfs) const {
    EXPECT_TRUE(ReadFile(rootfs / "base/a.bin") == base_a_);
    EXPECT_TRUE(ReadFile(rootfs / "app/model.bin") == model_);
    EXPECT_EQ(ReadFile(rootfs / "app/main"), "train");
    EXPECT_FALSE(fs::exists(rootfs / "base/b.bin")) << "removed by the second layer's whiteout";
  }

  // Names under the cache directory besides its lock files: entries and
  // unpacks in progress.
  std::vector<std::string> CacheNames(const fs::path& cache_dir) const {
    std::vector<std::string> names;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(cache_dir, ec)) {
      if (entry.path().filename() != ".locks") names.push_back(entry.path().filename().string());
    }
    return names;
  }

  RegistryServer server_;
  FaultProxy proxy_;  // declared after the server: stopped before it
  trainpkg::testing::FakeClock clock_;
  std::unique_ptr<registry::RegistryClient> client_;
  fs::path dir_;
  std::vector<StoredLayer> layers_;
  std::string base_a_;
  std::string model_;
};

TEST_F(StreamedPullTest, UnpacksEachLayerAsItArrivesAndKeepsThePulledImage) {
  // The last layer's download stalls (the client gives up after 2 s and
  // resumes): the layers below it must be unpacked by then, so the unpack
  // does not wait for the whole image.
  proxy_.AddRule({.method = "GET",
                  .path_pattern = layers_[2].descriptor.digest.hex(),
                  .kind = FaultKind::kStall,
                  .after_bytes = 1});
  std::atomic<bool> pull_done{false};
  std::atomic<bool> top_opened_during_pull{false};
  RootfsCache cache(dir_ / "rootfs");
  std::thread watcher;
  Outcome outcome = PullAndUnpack(dir_ / "store", cache, nullptr, [&](const oci::Descriptor& blob) {
    if (blob.digest == layers_[2].descriptor.digest && !pull_done) top_opened_during_pull = true;
  });
  pull_done = true;
  ASSERT_THAT(outcome.pulled, IsOk());
  ASSERT_THAT(outcome.rootfs, IsOk());
  ExpectTheImagesFiles(*outcome.rootfs);
  EXPECT_TRUE(top_opened_during_pull)
      << "layers 0 and 1 were applied before the stalled top layer had arrived";
  EXPECT_EQ(proxy_.Count("GET", layers_[2].descriptor.digest.hex()), 2) << "stalled, resumed";
  // The store keeps the image, whole and tagged, for the next job.
  auto store = oci::Layout::Open(dir_ / "store");
  ASSERT_THAT(store, IsOk());
  auto image = store->ReadImage("v1", registry::DefaultPlatform());
  ASSERT_THAT(image, IsOk());
  EXPECT_TRUE(image->missing_blobs.empty());
}

TEST_F(StreamedPullTest, AConnectionResetMidLayerResumesWithTheSameDigests) {
  proxy_.AddRule({.method = "GET",
                  .path_pattern = layers_[0].descriptor.digest.hex(),
                  .kind = FaultKind::kResetResponse,
                  .after_bytes = 300 * 1024});
  RootfsCache cache(dir_ / "rootfs");
  Outcome outcome = PullAndUnpack(dir_ / "store", cache);
  ASSERT_THAT(outcome.pulled, IsOk());
  ASSERT_THAT(outcome.rootfs, IsOk());
  ExpectTheImagesFiles(*outcome.rootfs);
  EXPECT_EQ(proxy_.Count("GET", layers_[0].descriptor.digest.hex()), 2) << "cut once, resumed";
  auto store = oci::Layout::Open(dir_ / "store");
  ASSERT_THAT(store, IsOk());
  EXPECT_TRUE(store->HasBlob(layers_[0].descriptor.digest));
}

TEST_F(StreamedPullTest, ACorruptedByteFailsNamingTheLayerAndLeavesNothingInTheCache) {
  proxy_.AddRule({.method = "GET",
                  .path_pattern = layers_[1].descriptor.digest.hex(),
                  .occurrence = 0,
                  .kind = FaultKind::kCorruptResponseBody,
                  .after_bytes = 200 * 1024});
  RootfsCache cache(dir_ / "rootfs");
  Outcome outcome = PullAndUnpack(dir_ / "store", cache);
  const std::string layer = layers_[1].descriptor.digest.ToString();
  ASSERT_FALSE(outcome.rootfs.ok());
  EXPECT_THAT(std::string(outcome.rootfs.status().message()), HasSubstr(layer));
  // The pull either found the digest wrong itself, or stopped because the
  // unpack (which hashes the same bytes) gave up first.
  ASSERT_FALSE(outcome.pulled.ok());
  if (!absl::IsCancelled(outcome.pulled)) {
    EXPECT_THAT(outcome.pulled, StatusIs(absl::StatusCode::kDataLoss, HasSubstr(layer)));
  }
  EXPECT_THAT(CacheNames(dir_ / "rootfs"), ::testing::IsEmpty())
      << "no rootfs entry and no half-unpacked temporary";
  auto store = oci::Layout::Open(dir_ / "store");
  ASSERT_THAT(store, IsOk());
  EXPECT_THAT(store->ReadImage("v1", registry::DefaultPlatform()),
              StatusIs(absl::StatusCode::kNotFound))
      << "no tag for an image the store did not get whole";
  EXPECT_FALSE(store->HasBlob(layers_[1].descriptor.digest));
}

TEST_F(StreamedPullTest, AFullDiskGivesAClearErrorAndAConsistentCache) {
  if (::geteuid() != 0) GTEST_SKIP() << "mounting a tmpfs needs root";
  const fs::path cache_dir = dir_ / "small";
  fs::create_directories(cache_dir);
  // 1 MiB: less than the image's 1.8 MB of files.
  if (::mount("tmpfs", cache_dir.c_str(), "tmpfs", 0, "size=1m") != 0) {
    GTEST_SKIP() << "cannot mount a tmpfs here: " << std::strerror(errno);
  }
  RootfsCache cache(cache_dir);
  Outcome outcome = PullAndUnpack(dir_ / "store", cache);
  EXPECT_THAT(outcome.rootfs, StatusIs(absl::StatusCode::kResourceExhausted,
                                       HasSubstr(layers_[0].descriptor.digest.ToString())));
  std::vector<std::string> left = CacheNames(cache_dir);
  ::umount2(cache_dir.c_str(), MNT_DETACH);
  EXPECT_THAT(left, ::testing::IsEmpty()) << "no rootfs entry and no half-unpacked temporary";
  // The pull stopped when the unpack gave up (or had finished by then).
  if (!outcome.pulled.ok()) {
    EXPECT_THAT(outcome.pulled, StatusIs(absl::StatusCode::kCancelled));
  }
}

TEST_F(StreamedPullTest, TwoJobsStartingOnTheSameNewImageUnpackItOnce) {
  RootfsCache cache(dir_ / "rootfs");
  std::atomic<int> opened{0};
  Outcome first;
  Outcome second;
  std::thread one([&] { first = PullAndUnpack(dir_ / "store", cache, &opened); });
  std::thread two([&] { second = PullAndUnpack(dir_ / "store", cache, &opened); });
  one.join();
  two.join();
  ASSERT_THAT(first.pulled, IsOk());
  ASSERT_THAT(second.pulled, IsOk());
  ASSERT_THAT(first.rootfs, IsOk());
  ASSERT_THAT(second.rootfs, IsOk());
  EXPECT_EQ(*first.rootfs, *second.rootfs);
  ExpectTheImagesFiles(*first.rootfs);
  EXPECT_EQ(opened.load(), static_cast<int>(layers_.size())) << "one unpack between them";
}

}  // namespace
}  // namespace trainpkg::sdk::internal
