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
      EXPECT_TRUE(layout.WriteBlob(base, "base-layer").ok());
    }
    EXPECT_TRUE(layout.WriteBlob(app, "app-layer").ok());
    auto config_descriptor =
        layout.WriteBlob(SerializeImageConfig(config), media_types::kOciImageConfig);
    EXPECT_TRUE(config_descriptor.ok());
    ImageManifest manifest;
    manifest.config = *config_descriptor;
    manifest.layers = {base, app};
    auto descriptor =
        layout.WriteBlob(SerializeImageManifest(manifest), media_types::kOciImageManifest);
    EXPECT_TRUE(descriptor.ok());
    EXPECT_TRUE(layout.Tag(*descriptor, tag).ok());
    return *descriptor;
  }

  std::filesystem::path dir_;
};

TEST_F(LayoutTest, CreateWritesTheSkeleton) {
  auto layout = Layout::Create(dir_ / "img");
  ASSERT_TRUE(layout.ok()) << layout.status();
  EXPECT_EQ(Slurp(dir_ / "img" / "oci-layout"), R"({"imageLayoutVersion":"1.0.0"})");
  EXPECT_EQ(
      Slurp(dir_ / "img" / "index.json"),
      R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]})");
  EXPECT_TRUE(std::filesystem::is_directory(dir_ / "img" / "blobs"));
  // Create on an existing layout keeps it.
  ASSERT_TRUE(layout->Tag(DescribeContent("m", media_types::kOciImageManifest), "v1").ok());
  auto again = Layout::Create(dir_ / "img");
  ASSERT_TRUE(again.ok());
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
  ASSERT_TRUE(layout.ok());
  auto descriptor = layout->WriteBlob("abc", "application/octet-stream");
  ASSERT_TRUE(descriptor.ok());
  EXPECT_EQ(descriptor->digest, Sha256Digest("abc"));
  EXPECT_EQ(descriptor->size, 3);
  std::filesystem::path path = dir_ / "blobs" / "sha256" / descriptor->digest.hex();
  EXPECT_EQ(layout->BlobPath(descriptor->digest), path);
  EXPECT_EQ(Slurp(path), "abc");
  EXPECT_TRUE(layout->HasBlob(descriptor->digest));
  EXPECT_EQ(*layout->ReadBlob(*descriptor), "abc");
  // Writing it again is a no-op.
  EXPECT_TRUE(layout->WriteBlob("abc", "application/octet-stream").ok());

  // No temporary files are left behind.
  EXPECT_EQ(::trainpkg::testing::CountEntries(dir_ / "blobs" / "sha256"), 1);

  auto absent = layout->ReadBlob(Sha256Digest("nope"));
  EXPECT_EQ(absent.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(absent.status()), HasSubstr("is not in the layout"));
}

TEST_F(LayoutTest, WriteBlobRefusesContentThatIsNotTheDescriptor) {
  auto layout = Layout::Create(dir_);
  ASSERT_TRUE(layout.ok());
  Descriptor expected = DescribeContent("abc", "application/octet-stream");
  absl::Status status = layout->WriteBlob(expected, "abd");
  EXPECT_EQ(status.code(), absl::StatusCode::kDataLoss);
  EXPECT_FALSE(layout->HasBlob(expected.digest));
  expected.size = 4;
  EXPECT_EQ(layout->WriteBlob(expected, "abc").code(), absl::StatusCode::kDataLoss);
}

TEST_F(LayoutTest, CorruptedBlobIsDetected) {
  auto layout = Layout::Create(dir_);
  ASSERT_TRUE(layout.ok());
  auto descriptor = layout->WriteBlob("original", "application/octet-stream");
  ASSERT_TRUE(descriptor.ok());
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
  ASSERT_TRUE(layout.ok());
  std::string data(1 << 20, 'z');
  {
    auto writer = layout->NewBlobWriter();
    ASSERT_TRUE(writer.ok()) << writer.status();
    ASSERT_TRUE(writer->Write(std::string_view(data).substr(0, 1000)).ok());
    ASSERT_TRUE(writer->Write(std::string_view(data).substr(1000)).ok());
    EXPECT_EQ(writer->size(), static_cast<int64_t>(data.size()));
    auto blob = writer->CommitExpecting(Sha256Digest(data), static_cast<int64_t>(data.size()));
    ASSERT_TRUE(blob.ok()) << blob.status();
    EXPECT_EQ(blob->digest, Sha256Digest(data));
    EXPECT_EQ(*layout->ReadBlob(blob->digest), data);
  }
  {
    auto writer = layout->NewBlobWriter();
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Write("not what was promised").ok());
    auto blob = writer->CommitExpecting(Sha256Digest("promised"));
    EXPECT_EQ(blob.status().code(), absl::StatusCode::kDataLoss);
    EXPECT_FALSE(layout->HasBlob(Sha256Digest("not what was promised")));
  }
  {
    auto writer = layout->NewBlobWriter();
    ASSERT_TRUE(writer.ok());
    ASSERT_TRUE(writer->Write("abandoned").ok());
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
  ASSERT_TRUE(layout.ok());
  std::string data(20 << 20, '\0');
  for (size_t i = 0; i < data.size(); ++i) data[i] = static_cast<char>((i * 2654435761u) >> 13);
  auto writer = layout->NewBlobWriter();
  ASSERT_TRUE(writer.ok()) << writer.status();
  const size_t kWrite = 777'777;
  for (size_t off = 0; off < data.size(); off += kWrite) {
    ASSERT_TRUE(writer->Write(std::string_view(data).substr(off, kWrite)).ok());
  }
  auto blob = writer->Commit();
  ASSERT_TRUE(blob.ok()) << blob.status();
  EXPECT_EQ(blob->digest, Sha256Digest(data));
  EXPECT_EQ(blob->size, static_cast<int64_t>(data.size()));
  EXPECT_TRUE(Slurp(layout->BlobPath(blob->digest)) == data);
}

TEST_F(LayoutTest, TagsAreAddedReplacedAndResolved) {
  auto layout = Layout::Create(dir_);
  ASSERT_TRUE(layout.ok());
  Descriptor one = WriteImage(*layout, true, "v1");
  auto resolved = layout->Resolve("");
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->digest, one.digest);
  EXPECT_EQ(resolved->annotations.at(std::string(annotations::kRefName)), "v1");

  Descriptor other = DescribeContent("other manifest", media_types::kOciImageManifest);
  ASSERT_TRUE(layout->Tag(other, "latest").ok());
  ASSERT_TRUE(layout->Tag(one, "stable").ok());
  auto tags = layout->ListTags();
  ASSERT_TRUE(tags.ok());
  ASSERT_EQ(tags->size(), 3u);
  EXPECT_EQ((*tags)[0].tag, "v1");
  EXPECT_EQ((*tags)[1].tag, "latest");
  EXPECT_EQ((*tags)[2].tag, "stable");

  // Tagging again as it is leaves index.json alone (no rewrite, same inode).
  struct stat before, after;
  ASSERT_EQ(::stat((dir_ / "index.json").c_str(), &before), 0);
  ASSERT_TRUE(layout->Tag(one, "stable").ok());
  ASSERT_EQ(::stat((dir_ / "index.json").c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(layout->ListTags()->size(), 3u);

  // Re-pointing a tag replaces its entry.
  ASSERT_TRUE(layout->Tag(one, "latest").ok());
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
  ASSERT_TRUE(layout.ok());
  Descriptor descriptor = WriteImage(*layout, true, "v1");
  auto image = layout->ReadImage("v1");
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->descriptor.digest, descriptor.digest);
  EXPECT_EQ(Sha256Digest(image->manifest_bytes), descriptor.digest);
  ASSERT_TRUE(image->config.has_value());
  EXPECT_EQ(image->config->config.entrypoint, std::vector<std::string>{"/bin/app"});
  EXPECT_TRUE(image->missing_blobs.empty());
  EXPECT_TRUE(ValidateImage(image->manifest, *image->config).ok());
}

TEST_F(LayoutTest, AbsentBaseBlobsAreReportedNotFatal) {
  auto layout = Layout::Create(dir_);
  ASSERT_TRUE(layout.ok());
  Descriptor descriptor = WriteImage(*layout, false, "shallow");
  auto reopened = Layout::Open(dir_);
  ASSERT_TRUE(reopened.ok());
  auto image = reopened->ReadImage("shallow");
  ASSERT_TRUE(image.ok()) << image.status();
  ASSERT_EQ(image->missing_blobs.size(), 1u);
  EXPECT_EQ(image->missing_blobs[0].digest, Sha256Digest("base-layer"));
  EXPECT_TRUE(image->config.has_value());

  auto missing = reopened->MissingBlobs(descriptor);
  ASSERT_TRUE(missing.ok());
  ASSERT_EQ(missing->size(), 1u);
  EXPECT_EQ((*missing)[0].digest, Sha256Digest("base-layer"));

  // Reading the absent blob itself is NotFound.
  EXPECT_EQ(reopened->ReadBlob(image->missing_blobs[0]).status().code(),
            absl::StatusCode::kNotFound);

  // A tag whose manifest is absent: ReadImage fails, MissingBlobs names it.
  Descriptor ghost = DescribeContent("ghost", media_types::kOciImageManifest);
  ASSERT_TRUE(reopened->Tag(ghost, "ghost").ok());
  EXPECT_EQ(reopened->ReadImage("ghost").status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(*reopened->MissingBlobs(ghost), ElementsAre(ghost));
}

TEST_F(LayoutTest, ReadImageThroughAnIndex) {
  auto layout = Layout::Create(dir_);
  ASSERT_TRUE(layout.ok());
  Descriptor amd64 = WriteImage(*layout, true, "amd64");
  amd64.platform = Platform{.architecture = "amd64", .os = "linux"};
  ImageIndex index;
  index.manifests = {amd64};
  auto index_descriptor =
      layout->WriteBlob(SerializeImageIndex(index), media_types::kOciImageIndex);
  ASSERT_TRUE(index_descriptor.ok());
  ASSERT_TRUE(layout->Tag(*index_descriptor, "multi").ok());

  auto no_platform = layout->ReadImage("multi");
  EXPECT_THAT(Message(no_platform.status()), HasSubstr("is an image index; choose a platform"));
  auto image = layout->ReadImage("multi", Platform{.architecture = "amd64", .os = "linux"});
  ASSERT_TRUE(image.ok()) << image.status();
  EXPECT_EQ(image->descriptor.digest, amd64.digest);
  auto arm = layout->ReadImage("multi", Platform{.architecture = "arm64", .os = "linux"});
  EXPECT_EQ(arm.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(Message(arm.status()), HasSubstr("oci:" + dir_.string() + ":multi: no manifest"));
  EXPECT_TRUE(layout->MissingBlobs(*index_descriptor)->empty());
}

TEST_F(LayoutTest, MalformedIndexJsonNamesTheFile) {
  auto layout = Layout::Create(dir_);
  ASSERT_TRUE(layout.ok());
  std::ofstream(dir_ / "index.json", std::ios::trunc) << R"({"schemaVersion":2,"manifests":{}})";
  auto tags = layout->ListTags();
  EXPECT_EQ(tags.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(tags.status()),
              HasSubstr("index.json: image index: manifests: expected an array"));
}

TEST(LayoutReferenceTest, Parse) {
  auto plain = ParseLayoutReference("oci:/tmp/img");
  ASSERT_TRUE(plain.ok());
  EXPECT_EQ(*plain, (LayoutReference{"/tmp/img", ""}));
  auto tagged = ParseLayoutReference("oci:out/img:v1.2-rc_1");
  ASSERT_TRUE(tagged.ok());
  EXPECT_EQ(*tagged, (LayoutReference{"out/img", "v1.2-rc_1"}));
  EXPECT_EQ(FormatLayoutReference(*tagged), "oci:out/img:v1.2-rc_1");
  EXPECT_EQ(FormatLayoutReference(*plain), "oci:/tmp/img");
  auto colon_tag = ParseLayoutReference("oci:img:a:b");
  ASSERT_TRUE(colon_tag.ok());
  EXPECT_EQ(colon_tag->tag, "a:b");

  for (std::string_view bad : {"docker://x", "oci:", "oci::tag", "oci:dir:", "oci:dir:-x",
                               "oci:dir:a b", "oci:dir:a//b"}) {
    auto reference = ParseLayoutReference(bad);
    EXPECT_EQ(reference.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

TEST(LayoutReferenceTest, RefNameGrammar) {
  for (std::string_view good : {"latest", "v1.0", "1", "a--b", "stable/2", "x@y+z", "A_b.c"}) {
    EXPECT_TRUE(ValidateRefName(good).ok()) << good;
  }
  for (std::string_view bad : {"", "-a", "a-", "a..b", "/a", "a/", "a b", "a---b"}) {
    EXPECT_FALSE(ValidateRefName(bad).ok()) << bad;
  }
}

}  // namespace
}  // namespace trainpkg::oci
