#include "packager/unpack/layer_unpacker.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/media_types.h"
#include "tests/packager/unpack/layer_tar.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::unpack {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using testing::Compression;
using ::testing::HasSubstr;
using testing::LayerTar;
using testing::StoredLayer;
using testing::StoreLayer;

using trainpkg::testing::Slurp;

class LayerUnpackerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A parameterized test's name has a '/' ("WritesFilesDirsAndLinks/0"):
    // one level, so that TearDown removes all of it.
    std::string name = ::testing::UnitTest::GetInstance()->current_test_info()->name();
    std::replace(name.begin(), name.end(), '/', '_');
    dir_ = fs::path(::testing::TempDir()) / ("unpack-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(dir_);
    fs::create_directories(dir_ / "rootfs");
    fs::create_directories(dir_ / "outside");
    std::ofstream(dir_ / "outside/secret") << "host data";
    auto layout = oci::Layout::Create(dir_ / "layout");
    ASSERT_THAT(layout, IsOk());
    layout_.emplace(*layout);
  }
  void TearDown() override { fs::remove_all(dir_); }

  absl::Status Unpack(const std::vector<StoredLayer>& layers) {
    std::vector<oci::Descriptor> descriptors;
    std::vector<oci::Digest> diff_ids;
    for (const StoredLayer& layer : layers) {
      descriptors.push_back(layer.descriptor);
      diff_ids.push_back(layer.diff_id);
    }
    return UnpackLayers(*layout_, descriptors, diff_ids, rootfs(), UnpackOptions{});
  }
  absl::Status UnpackOne(const LayerTar& tar, StoredLayer* stored = nullptr) {
    StoredLayer layer = StoreLayer(*layout_, tar);
    if (stored != nullptr) *stored = layer;
    return Unpack({layer});
  }
  fs::path rootfs() const { return dir_ / "rootfs"; }
  void ExpectOutsideUntouched() {
    EXPECT_EQ(Slurp(dir_ / "outside/secret"), "host data");
    EXPECT_EQ(std::distance(fs::directory_iterator(dir_ / "outside"), fs::directory_iterator()), 1);
  }

  fs::path dir_;
  std::optional<oci::Layout> layout_;
};

LayerTar Basic() {
  LayerTar tar;
  tar.Dir("./bin/", 0755)
      .File("./bin/tool", "#!/bin/sh\n", 0755)
      .Dir("etc/")
      .File("etc/conf", "a=1\n", 0640)
      .Symlink("etc/link", "/bin/tool")
      .Hardlink("etc/hard", "etc/conf")
      .File("deep/nested/file", "x");
  return tar;
}

class CompressionTest : public LayerUnpackerTest,
                        public ::testing::WithParamInterface<Compression> {};

TEST_P(CompressionTest, WritesFilesDirsAndLinks) {
  ASSERT_THAT(Unpack({StoreLayer(*layout_, Basic(), GetParam())}), IsOk());
  EXPECT_EQ(Slurp(rootfs() / "bin/tool"), "#!/bin/sh\n");
  EXPECT_EQ(fs::status(rootfs() / "bin/tool").permissions(), fs::perms(0755));
  EXPECT_EQ(fs::status(rootfs() / "etc/conf").permissions(), fs::perms(0640));
  EXPECT_EQ(fs::read_symlink(rootfs() / "etc/link"), "/bin/tool");
  EXPECT_TRUE(fs::equivalent(rootfs() / "etc/hard", rootfs() / "etc/conf"));
  EXPECT_EQ(Slurp(rootfs() / "deep/nested/file"), "x");
  struct stat st;
  ASSERT_EQ(::stat((rootfs() / "etc/conf").c_str(), &st), 0);
  EXPECT_EQ(st.st_mtime, 1000000000);
}

INSTANTIATE_TEST_SUITE_P(All, CompressionTest,
                         ::testing::Values(Compression::kNone, Compression::kGzip,
                                           Compression::kZstd));

TEST_F(LayerUnpackerTest, WhiteoutRemovesLowerFilesAndDirectories) {
  LayerTar lower;
  lower.File("a/keep", "k").File("a/gone", "g").File("b/x", "x").File("c", "c");
  LayerTar upper;
  upper.File("a/.wh.gone", "").File(".wh.b", "").File("c", "new").File("a/.wh.missing", "");
  ASSERT_THAT(Unpack({StoreLayer(*layout_, lower), StoreLayer(*layout_, upper)}), IsOk());
  EXPECT_TRUE(fs::exists(rootfs() / "a/keep"));
  EXPECT_FALSE(fs::exists(rootfs() / "a/gone"));
  EXPECT_FALSE(fs::exists(rootfs() / "a/.wh.gone"));
  EXPECT_FALSE(fs::exists(rootfs() / "b"));
  EXPECT_EQ(Slurp(rootfs() / "c"), "new");
}

TEST_F(LayerUnpackerTest, OpaqueDirectoryHidesLowerChildrenWhereverTheMarkerSits) {
  LayerTar lower;
  lower.File("d/old", "o").File("d/sub/old", "o").File("other/kept", "k");
  LayerTar upper;
  // The marker after a sibling of this layer: that sibling stays.
  upper.File("d/sub/new", "n").File("d/.wh..wh..opq", "").File("d/fresh", "f");
  ASSERT_THAT(Unpack({StoreLayer(*layout_, lower), StoreLayer(*layout_, upper)}), IsOk());
  EXPECT_FALSE(fs::exists(rootfs() / "d/old"));
  EXPECT_FALSE(fs::exists(rootfs() / "d/sub/old"));
  EXPECT_EQ(Slurp(rootfs() / "d/sub/new"), "n");
  EXPECT_EQ(Slurp(rootfs() / "d/fresh"), "f");
  EXPECT_FALSE(fs::exists(rootfs() / "d/.wh..wh..opq"));
  EXPECT_TRUE(fs::exists(rootfs() / "other/kept"));
}

TEST_F(LayerUnpackerTest, RefusesPathTraversal) {
  StoredLayer layer;
  absl::Status status = UnpackOne(LayerTar().File("../outside/pwned", "x"), &layer);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr(layer.descriptor.digest.ToString()), HasSubstr("../outside/pwned"),
                    HasSubstr("\"..\"")));
  ExpectOutsideUntouched();
}

TEST_F(LayerUnpackerTest, RefusesAbsolutePaths) {
  absl::Status status = UnpackOne(LayerTar().File((dir_ / "outside/pwned").string(), "x"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("absolute path"));
  ExpectOutsideUntouched();
}

TEST_F(LayerUnpackerTest, NeverWritesThroughAnAbsoluteSymlink) {
  absl::Status status =
      UnpackOne(LayerTar().Symlink("evil", (dir_ / "outside").string()).File("evil/pwned", "x"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("entry evil/pwned"), HasSubstr("evil is a symlink")));
  ExpectOutsideUntouched();
}

TEST_F(LayerUnpackerTest, NeverWritesThroughASymlinkFromALowerLayer) {
  LayerTar lower;
  lower.Symlink("evil", (dir_ / "outside").string());
  LayerTar upper;
  upper.File("evil/.wh.secret", "");
  absl::Status status = Unpack({StoreLayer(*layout_, lower), StoreLayer(*layout_, upper)});
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  ExpectOutsideUntouched();
}

// Issue 16 finding 12: one rule with the builder
// (docs/adr/2026-11-27-symlinks-resolve-inside-the-root.md).
TEST_F(LayerUnpackerTest, KeepsSymlinksClimbingOutOfTheRootAsWritten) {
  absl::Status status = UnpackOne(LayerTar().Symlink("a/up", "../../outside"));
  ASSERT_THAT(status, IsOk());
  EXPECT_EQ(fs::read_symlink(rootfs() / "a/up").string(), "../../outside");
  EXPECT_THAT(UnpackOne(LayerTar().Symlink("a/b/ok", "../../etc/passwd")), IsOk());
  // Never followed while unpacking: writing through it is refused.
  status = UnpackOne(LayerTar().File("a/up/pwned", "x"));
  EXPECT_EQ(status.code(), absl::StatusCode::kFailedPrecondition);
  ExpectOutsideUntouched();
}

// Issue 16 finding 10: only the decompressor the media type names.
TEST_F(LayerUnpackerTest, RefusesABzip2LayerLabelledTarGzip) {
  StoredLayer layer = testing::StoreLayerAs(*layout_, Basic(), Compression::kBzip2,
                                            oci::media_types::kOciLayerGzip);
  absl::Status status = Unpack({layer});
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr(layer.descriptor.digest.ToString()), HasSubstr("tar+gzip names gzip"),
                    HasSubstr("bzip2 data")));
  EXPECT_FALSE(fs::exists(rootfs() / "bin"));
}

TEST_F(LayerUnpackerTest, RefusesCompressionTheMediaTypeDoesNotName) {
  struct Case {
    Compression compression;
    std::string_view media_type;
    const char* found;
  };
  for (const Case& c : {Case{Compression::kXz, oci::media_types::kOciLayerGzip, "xz data"},
                        Case{Compression::kGzip, oci::media_types::kOciLayer, "gzip data"},
                        Case{Compression::kZstd, oci::media_types::kDockerLayerGzip, "zstd data"},
                        Case{Compression::kNone, oci::media_types::kOciLayerZstd, "something"}}) {
    StoredLayer layer = testing::StoreLayerAs(*layout_, Basic(), c.compression, c.media_type);
    absl::Status status = Unpack({layer});
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument) << c.media_type;
    EXPECT_THAT(std::string(status.message()), HasSubstr(c.found)) << c.media_type;
  }
  EXPECT_FALSE(fs::exists(rootfs() / "bin"));
}

TEST_F(LayerUnpackerTest, CapsUncompressedBytesOverAllLayers) {
  StoredLayer first = StoreLayer(*layout_, LayerTar().File("a", std::string(7000, 'a')));
  StoredLayer second = StoreLayer(*layout_, LayerTar().File("b", std::string(7000, 'b')));
  UnpackOptions options;
  options.limits.max_bytes = 16 * 1024;  // each layer's tar fits, both do not
  absl::Status status = UnpackLayers(*layout_, std::vector{first.descriptor, second.descriptor},
                                     std::vector{first.diff_id, second.diff_id}, rootfs(), options);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr(second.descriptor.digest.ToString()), HasSubstr("16384 bytes")));
}

TEST_F(LayerUnpackerTest, CapsEntries) {
  LayerTar tar;
  for (int i = 0; i < 50; ++i) tar.File("f" + std::to_string(i), "");
  StoredLayer layer = StoreLayer(*layout_, tar);
  UnpackOptions options;
  options.limits.max_entries = 20;
  absl::Status status = UnpackLayers(*layout_, std::vector{layer.descriptor},
                                     std::vector{layer.diff_id}, rootfs(), options);
  EXPECT_EQ(status.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(status.message()), AllOf(HasSubstr(layer.descriptor.digest.ToString()),
                                                   HasSubstr("more than 20 entries")));
  EXPECT_FALSE(fs::exists(rootfs() / "f20"));
}

TEST(ExtractLimitsTest, ByteCapKeepsAReserveOfTheFreeSpace) {
  constexpr int64_t kGiB = int64_t{1} << 30;
  EXPECT_EQ(EffectiveMaxBytes(0, 100 * kGiB, 50 * kGiB), 49 * kGiB);
  EXPECT_EQ(EffectiveMaxBytes(0, 10 * kGiB, 2 * kGiB), 2 * kGiB - kGiB / 2);  // 5% of 10 GiB
  EXPECT_EQ(EffectiveMaxBytes(kGiB, 100 * kGiB, 50 * kGiB), kGiB);
  EXPECT_EQ(EffectiveMaxBytes(0, 100 * kGiB, kGiB / 2), 0);
  EXPECT_EQ(EffectiveMaxBytes(0, 10000 * kGiB, 5000 * kGiB), kHardMaxExtractBytes);
}

TEST_F(LayerUnpackerTest, RefusesHardlinksOutside) {
  absl::Status status = UnpackOne(LayerTar().Hardlink("h", "../outside/secret"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), AllOf(HasSubstr("entry h"), HasSubstr("hardlink")));
  status = UnpackOne(LayerTar().Hardlink("h2", (dir_ / "outside/secret").string()));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_FALSE(fs::exists(rootfs() / "h"));
  EXPECT_FALSE(fs::exists(rootfs() / "h2"));
  ExpectOutsideUntouched();
}

TEST_F(LayerUnpackerTest, RefusesDeviceNodesAndFifos) {
  absl::Status status = UnpackOne(LayerTar().CharDevice("dev/null"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr("entry dev/null"), HasSubstr("device nodes are refused")));
  EXPECT_FALSE(fs::exists(rootfs() / "dev/null"));
  status = UnpackOne(LayerTar().Fifo("pipe"));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("FIFOs are refused"));
}

TEST_F(LayerUnpackerTest, RefusesAWhiteoutWithoutAName) {
  absl::Status status = UnpackOne(LayerTar().File("a/.wh.", ""));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()), HasSubstr("whiteout without a name"));
}

TEST_F(LayerUnpackerTest, ChecksTheDiffId) {
  StoredLayer layer = StoreLayer(*layout_, Basic());
  layer.diff_id = oci::Sha256Digest("something else");
  absl::Status status = Unpack({layer});
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(status.message()),
              AllOf(HasSubstr(layer.descriptor.digest.ToString()), HasSubstr("diff_id")));
}

TEST_F(LayerUnpackerTest, ChecksTheBlobDigest) {
  StoredLayer layer = StoreLayer(*layout_, Basic(), Compression::kNone);
  const fs::path blob = layout_->BlobPath(layer.descriptor.digest);
  std::string bytes = Slurp(blob);
  fs::permissions(blob, fs::perms::owner_write, fs::perm_options::add);
  // Tamper with padding after the last entry: the tar still parses.
  bytes[bytes.size() - 1] = 'x';
  std::ofstream(blob, std::ios::binary | std::ios::trunc) << bytes;
  absl::Status status = Unpack({layer});
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(status.message()), HasSubstr("blob content has digest"));
}

TEST_F(LayerUnpackerTest, NamesAMissingBlob) {
  StoredLayer layer = StoreLayer(*layout_, Basic());
  fs::remove(layout_->BlobPath(layer.descriptor.digest));
  absl::Status status = Unpack({layer});
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), HasSubstr(layer.descriptor.digest.ToString()));
}

}  // namespace
}  // namespace trainpkg::packager::unpack
