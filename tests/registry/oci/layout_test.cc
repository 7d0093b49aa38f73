#include "registry/oci/layout.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/annotations.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/layout_reference.h"
#include "registry/oci/media_types.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::oci {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

using trainpkg::testing::Slurp;

std::string Message(const absl::Status& status) { return std::string(status.message()); }

class LayoutTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = ::testing::TempDir() + "/oci_layout_test_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // An image with a config and two layers, the layers written only when
  // `with_layers`. Returns the manifest's descriptor (manifest blob written).
  Descriptor WriteImage(const Layout& layout, bool with_layers, std::string_view tag) {
    ImageConfig config;
    config.architecture = "amd64";
    config.os = "linux";
    config.config.entrypoint = {"/bin/app"};
    config.rootfs.diff_ids = {Sha256Digest("base-tar"), Sha256Digest("app-tar")};
    Descriptor base = DescribeContent("base-layer", media_types::kOciLayerGzip);
    Descriptor app = DescribeContent("app-layer", media_types::kOciLayerGzip);
    if (with_layers) {
      EXPECT_THAT(layout.WriteBlob(base, "base-layer"), IsOk());
    }
    EXPECT_THAT(layout.WriteBlob(app, "app-layer"), IsOk());
    auto config_descriptor =
        layout.WriteBlob(SerializeImageConfig(config), media_types::kOciImageConfig);
    EXPECT_THAT(config_descriptor, IsOk());
    ImageManifest manifest;
    manifest.config = *config_descriptor;
    manifest.layers = {base, app};
    auto descriptor =
        layout.WriteBlob(SerializeImageManifest(manifest), media_types::kOciImageManifest);
    EXPECT_THAT(descriptor, IsOk());
    EXPECT_THAT(layout.Tag(*descriptor, tag), IsOk());
    return *descriptor;
  }

  std::filesystem::path dir_;
};

TEST_F(LayoutTest, CreateWritesTheSkeleton) {
  auto layout = Layout::Create(dir_ / "img");
  ASSERT_THAT(layout, IsOk());
  EXPECT_EQ(Slurp(dir_ / "img" / "oci-layout"), R"({"imageLayoutVersion":"1.0.0"})");
  EXPECT_EQ(
      Slurp(dir_ / "img" / "index.json"),
      R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]})");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "img" / "blobs"));
  // Create on an existing layout keeps it.
  ASSERT_THAT(layout->Tag(DescribeContent("m", media_types::kOciImageManifest), "v1"), IsOk());
  auto again = Layout::Create(dir_ / "img");
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(again->ListTags()->size(), 1u);
}

TEST_F(LayoutTest, OpenRejectsWhatIsNotALayout) {
  auto missing = Layout::Open(dir_);
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(missing.status()), HasSubstr("is not an OCI image layout"));
  std::ofstream(dir_ / "oci-layout") << R"({"imageLayoutVersion":"2.0.0"})";
  auto version = Layout::Open(dir_);
  EXPECT_EQ(version.status().code(), absl::StatusCode::kFailedPrecondition);
  std::ofstream(dir_ / "oci-layout") << R"({"imageLayoutVersion":1})";
  auto malformed = Layout::Open(dir_);
  EXPECT_THAT(Message(malformed.status()), HasSubstr("imageLayoutVersion: expected a string"));
}

TEST_F(LayoutTest, BlobsAreStoredByDigestAndVerified) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  auto descriptor = layout->WriteBlob("abc", "application/octet-stream");
  ASSERT_THAT(descriptor, IsOk());
  EXPECT_EQ(descriptor->digest, Sha256Digest("abc"));
  EXPECT_EQ(descriptor->size, 3);
  std::filesystem::path path = dir_ / "blobs" / "sha256" / descriptor->digest.hex();
  EXPECT_EQ(layout->BlobPath(descriptor->digest), path);
  EXPECT_EQ(Slurp(path), "abc");
  EXPECT_TRUE(layout->HasBlob(descriptor->digest));
  EXPECT_EQ(*layout->ReadBlob(*descriptor), "abc");
  // Writing it again is a no-op.
  EXPECT_THAT(layout->WriteBlob("abc", "application/octet-stream"), IsOk());

  // No temporary files are left behind.
  EXPECT_EQ(::trainpkg::testing::CountEntries(dir_ / "blobs" / "sha256"), 1);

  auto absent = layout->ReadBlob(Sha256Digest("nope"));
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(absent.status()), HasSubstr("is not in the layout"));
}

TEST_F(LayoutTest, WriteBlobRefusesContentThatIsNotTheDescriptor) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  Descriptor expected = DescribeContent("abc", "application/octet-stream");
  absl::Status status = layout->WriteBlob(expected, "abd");
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(layout->HasBlob(expected.digest));
  expected.size = 4;
  EXPECT_EQ(layout->WriteBlob(expected, "abc").code(), absl::StatusCode::kDataLoss);
}

TEST_F(LayoutTest, CorruptedBlobIsDetected) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  auto descriptor = layout->WriteBlob("original", "application/octet-stream");
  ASSERT_THAT(descriptor, IsOk());
  std::ofstream(layout->BlobPath(descriptor->digest), std::ios::trunc) << "tampered";
  auto read = layout->ReadBlob(*descriptor);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(Message(read.status()), HasSubstr("is corrupted: its content hashes to " +
                                                Sha256Digest("tampered").ToString()));
  std::ofstream(layout->BlobPath(descriptor->digest), std::ios::trunc) << "short";
  EXPECT_THAT(Message(layout->ReadBlob(*descriptor).status()), HasSubstr("has 5 bytes"));
}

TEST_F(LayoutTest, StreamingBlobWriter) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  std::string data(1 << 20, 'z');
  {
    auto writer = layout->NewBlobWriter();
    ASSERT_THAT(writer, IsOk());
    ASSERT_THAT(writer->Write(std::string_view(data).substr(0, 1000)), IsOk());
    ASSERT_THAT(writer->Write(std::string_view(data).substr(1000)), IsOk());
    EXPECT_EQ(writer->size(), static_cast<int64_t>(data.size()));
    auto blob = writer->CommitExpecting(Sha256Digest(data), static_cast<int64_t>(data.size()));
    ASSERT_THAT(blob, IsOk());
    EXPECT_EQ(blob->digest, Sha256Digest(data));
    EXPECT_EQ(*layout->ReadBlob(blob->digest), data);
  }
  {
    auto writer = layout->NewBlobWriter();
    ASSERT_THAT(writer, IsOk());
    ASSERT_THAT(writer->Write("not what was promised"), IsOk());
    auto blob = writer->CommitExpecting(Sha256Digest("promised"));
    EXPECT_EQ(blob.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_FALSE(layout->HasBlob(Sha256Digest("not what was promised")));
  }
  {
    auto writer = layout->NewBlobWriter();
    ASSERT_THAT(writer, IsOk());
    ASSERT_THAT(writer->Write("abandoned"), IsOk());
  }
  // Only the committed blob remains: failed and abandoned writers cleaned up.
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "blobs" / "sha256")) {
    names.push_back(entry.path().filename().string());
  }
  EXPECT_THAT(names, ElementsAre(Sha256Digest(data).hex()));
}

TEST_F(LayoutTest, StreamingBlobWriterKeepsEveryByteAcrossWritebackChunks) {
  // 20 MiB in uneven writes: writeback starts twice (every 8 MiB) mid-blob.
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  std::string data(20 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 13);
  auto writer = layout->NewBlobWriter();
  ASSERT_THAT(writer, IsOk());
  const size_t kWrite = 777'777;
  for (size_t off = 0; off < data.size(); off += kWrite) {
    ASSERT_THAT(writer->Write(std::string_view(data).substr(off, kWrite)), IsOk());
  }
  auto blob = writer->Commit();
  ASSERT_THAT(blob, IsOk());
  EXPECT_EQ(blob->digest, Sha256Digest(data));
  EXPECT_EQ(blob->size, static_cast<int64_t>(data.size()));
  EXPECT_TRUE(Slurp(layout->BlobPath(blob->digest)) == data);
}

TEST_F(LayoutTest, TagsAreAddedReplacedAndResolved) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  Descriptor one = WriteImage(*layout, true, "v1");
  auto resolved = layout->Resolve("");
  ASSERT_THAT(resolved, IsOk());
  EXPECT_EQ(resolved->digest, one.digest);
  EXPECT_EQ(resolved->annotations.at(std::string(annotations::kRefName)), "v1");

  Descriptor other = DescribeContent("other manifest", media_types::kOciImageManifest);
  ASSERT_THAT(layout->Tag(other, "latest"), IsOk());
  ASSERT_THAT(layout->Tag(one, "stable"), IsOk());
  auto tags = layout->ListTags();
  ASSERT_THAT(tags, IsOk());
  ASSERT_EQ(tags->size(), 3u);
  EXPECT_EQ((*tags)[0].tag, "v1");
  EXPECT_EQ((*tags)[1].tag, "latest");
  EXPECT_EQ((*tags)[2].tag, "stable");

  // Tagging again as it is leaves index.json alone (no rewrite, same inode).
  struct stat before, after;
  ASSERT_EQ(::stat((dir_ / "index.json").c_str(), &before), 0);
  ASSERT_THAT(layout->Tag(one, "stable"), IsOk());
  ASSERT_EQ(::stat((dir_ / "index.json").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(layout->ListTags()->size(), 3u);

  // Re-pointing a tag replaces its entry.
  ASSERT_THAT(layout->Tag(one, "latest"), IsOk());
  tags = layout->ListTags();
  ASSERT_EQ(tags->size(), 3u);
  EXPECT_EQ((*tags)[2].tag, "latest");
  EXPECT_EQ((*tags)[2].descriptor.digest, one.digest);

  auto ambiguous = layout->Resolve("");
  EXPECT_EQ(ambiguous.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(ambiguous.status()), HasSubstr("it has: v1, stable, latest"));
  auto unknown = layout->Resolve("v2");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(unknown.status()), HasSubstr("no image tagged \"v2\""));

  EXPECT_EQ(layout->Tag(one, "bad tag").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(layout->Tag(DescribeContent("x", media_types::kOciLayerGzip), "t")),
              HasSubstr("only manifests and indexes can be tagged"));
}

TEST_F(LayoutTest, ReadImage) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  Descriptor descriptor = WriteImage(*layout, true, "v1");
  auto image = layout->ReadImage("v1");
  ASSERT_THAT(image, IsOk());
  EXPECT_EQ(image->descriptor.digest, descriptor.digest);
  EXPECT_EQ(Sha256Digest(image->manifest_bytes), descriptor.digest);
  ASSERT_TRUE(image->config.has_value());
  EXPECT_EQ(image->config->config.entrypoint, std::vector<std::string>{"/bin/app"});
  EXPECT_TRUE(image->missing_blobs.empty());
  EXPECT_THAT(ValidateImage(image->manifest, *image->config), IsOk());
}

TEST_F(LayoutTest, AbsentBaseBlobsAreReportedNotFatal) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  Descriptor descriptor = WriteImage(*layout, false, "shallow");
  auto reopened = Layout::Open(dir_);
  ASSERT_THAT(reopened, IsOk());
  auto image = reopened->ReadImage("shallow");
  ASSERT_THAT(image, IsOk());
  ASSERT_EQ(image->missing_blobs.size(), 1u);
  EXPECT_EQ(image->missing_blobs[0].digest, Sha256Digest("base-layer"));
  EXPECT_TRUE(image->config.has_value());

  auto missing = reopened->MissingBlobs(descriptor);
  ASSERT_THAT(missing, IsOk());
  ASSERT_EQ(missing->size(), 1u);
  EXPECT_EQ((*missing)[0].digest, Sha256Digest("base-layer"));

  // Reading the absent blob itself is NotFound.
  EXPECT_EQ(reopened->ReadBlob(image->missing_blobs[0]).status().code(),
            absl::StatusCode::kNotFound);

  // A tag whose manifest is absent: ReadImage fails, MissingBlobs names it.
  Descriptor ghost = DescribeContent("ghost", media_types::kOciImageManifest);
  ASSERT_THAT(reopened->Tag(ghost, "ghost"), IsOk());
  EXPECT_EQ(reopened->ReadImage("ghost").status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(*reopened->MissingBlobs(ghost), ElementsAre(ghost));
}

TEST_F(LayoutTest, ReadImageThroughAnIndex) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  Descriptor amd64 = WriteImage(*layout, true, "amd64");
  amd64.platform = Platform{.architecture = "amd64", .os = "linux"};
  ImageIndex index;
  index.manifests = {amd64};
  auto index_descriptor =
      layout->WriteBlob(SerializeImageIndex(index), media_types::kOciImageIndex);
  ASSERT_THAT(index_descriptor, IsOk());
  ASSERT_THAT(layout->Tag(*index_descriptor, "multi"), IsOk());

  auto no_platform = layout->ReadImage("multi");
  EXPECT_THAT(Message(no_platform.status()), HasSubstr("is an image index; choose a platform"));
  auto image = layout->ReadImage("multi", Platform{.architecture = "amd64", .os = "linux"});
  ASSERT_THAT(image, IsOk());
  EXPECT_EQ(image->descriptor.digest, amd64.digest);
  auto arm = layout->ReadImage("multi", Platform{.architecture = "arm64", .os = "linux"});
  EXPECT_EQ(arm.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(arm.status()), HasSubstr("oci:" + dir_.string() + ":multi: no manifest"));
  EXPECT_TRUE(layout->MissingBlobs(*index_descriptor)->empty());
}

TEST_F(LayoutTest, MalformedIndexJsonNamesTheFile) {
  auto layout = Layout::Create(dir_);
  ASSERT_THAT(layout, IsOk());
  std::ofstream(dir_ / "index.json", std::ios::trunc) << R"({"schemaVersion":2,"manifests":{}})";
  auto tags = layout->ListTags();
  EXPECT_EQ(tags.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(tags.status()),
              HasSubstr("index.json: image index: manifests: expected an array"));
}

TEST(LayoutReferenceTest, Parse) {
  auto plain = ParseLayoutReference("oci:/tmp/img");
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(*plain, (LayoutReference{"/tmp/img", ""}));
  auto tagged = ParseLayoutReference("oci:out/img:v1.2-rc_1");
  ASSERT_THAT(tagged, IsOk());
  EXPECT_EQ(*tagged, (LayoutReference{"out/img", "v1.2-rc_1"}));
  EXPECT_EQ(FormatLayoutReference(*tagged), "oci:out/img:v1.2-rc_1");
  EXPECT_EQ(FormatLayoutReference(*plain), "oci:/tmp/img");
  auto colon_tag = ParseLayoutReference("oci:img:a:b");
  ASSERT_THAT(colon_tag, IsOk());
  EXPECT_EQ(colon_tag->tag, "a:b");

  for (std::string_view bad : {"docker://x", "oci:", "oci::tag", "oci:dir:", "oci:dir:-x",
                               "oci:dir:a b", "oci:dir:a//b"}) {
    auto reference = ParseLayoutReference(bad);
    EXPECT_EQ(reference.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(LayoutReferenceTest, RefNameGrammar) {
  for (std::string_view good : {"latest", "v1.0", "1", "a--b", "stable/2", "x@y+z", "A_b.c"}) {
    EXPECT_THAT(ValidateRefName(good), IsOk()) << good;
  }
  for (std::string_view bad : {"", "-a", "a-", "a..b", "/a", "a/", "a b", "a---b"}) {
    EXPECT_FALSE(ValidateRefName(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace trainpkg::oci
