// Spec rules: descriptors, the OCI/Docker no-mixing rule, manifests, indexes,
// configs, and a manifest against its config.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::oci {
namespace {

using ::testing::HasSubstr;

std::string Message(const absl::Status& status) { return std::string(status.message()); }

ImageManifest OciImage() {
  ImageManifest manifest;
  manifest.config = DescribeContent("config", media_types::kOciImageConfig);
  manifest.layers = {DescribeContent("l0", media_types::kOciLayerGzip),
                     DescribeContent("l1", media_types::kOciLayerZstd)};
  return manifest;
}

ImageManifest DockerImage() {
  ImageManifest manifest;
  manifest.media_type = media_types::kDockerManifest;
  manifest.config = DescribeContent("config", media_types::kDockerConfig);
  manifest.layers = {DescribeContent("l0", media_types::kDockerLayerGzip),
                     DescribeContent("l1", media_types::kDockerForeignLayerGzip)};
  return manifest;
}

TEST(MediaTypesTest, FamiliesAndEquivalents) {
  EXPECT_EQ(FamilyOf(media_types::kOciLayerGzip), MediaTypeFamily::kOci);
  EXPECT_EQ(FamilyOf(media_types::kDockerManifestList), MediaTypeFamily::kDocker);
  EXPECT_EQ(FamilyOf("application/vnd.cncf.helm.config.v1+json"), MediaTypeFamily::kOther);
  EXPECT_EQ(DockerEquivalent(media_types::kOciImageIndex), media_types::kDockerManifestList);
  EXPECT_EQ(OciEquivalent(media_types::kDockerForeignLayerGzip),
            media_types::kOciLayerNondistributableGzip);
  EXPECT_EQ(DockerEquivalent(media_types::kOciLayerZstd), "");
  EXPECT_TRUE(IsLayerMediaType(media_types::kDockerLayer));
  EXPECT_TRUE(IsNondistributableLayerMediaType(media_types::kOciLayerNondistributable));
  EXPECT_FALSE(IsLayerMediaType(media_types::kOciImageConfig));
  EXPECT_TRUE(IsIndexMediaType(media_types::kDockerManifestList));
  EXPECT_TRUE(IsManifestMediaType(media_types::kDockerManifest));
}

TEST(ValidateManifestTest, AcceptsBothFamilies) {
  EXPECT_THAT(ValidateImageManifest(OciImage()), IsOk());
  EXPECT_THAT(ValidateImageManifest(DockerImage()), IsOk());
  ImageManifest no_media_type = OciImage();
  no_media_type.media_type.clear();
  EXPECT_THAT(ValidateImageManifest(no_media_type), IsOk());
  EXPECT_EQ(ManifestFamily(no_media_type), MediaTypeFamily::kOci);
}

TEST(ValidateManifestTest, NeverMixesOciAndDocker) {
  ImageManifest oci = OciImage();
  oci.layers[1] = DescribeContent("l1", media_types::kDockerLayerGzip);
  absl::Status status = ValidateImageManifest(oci);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(Message(status),
              HasSubstr("layers[1] (" + oci.layers[1].digest.ToString() +
                        "): Docker media type application/vnd.docker.image.rootfs.diff.tar.gzip "
                        "in an OCI manifest"));

  ImageManifest docker = DockerImage();
  docker.config.media_type = media_types::kOciImageConfig;
  EXPECT_THAT(Message(ValidateImageManifest(docker)),
              HasSubstr("config (" + docker.config.digest.ToString() +
                        "): OCI media type application/vnd.oci.image.config.v1+json in a Docker "
                        "manifest"));

  ImageManifest docker_zstd = DockerImage();
  docker_zstd.layers[0].media_type = media_types::kOciLayerZstd;
  EXPECT_THAT(Message(ValidateImageManifest(docker_zstd)), HasSubstr("layers[0] ("));
}

TEST(ValidateManifestTest, SpecRules) {
  ImageManifest manifest = OciImage();
  manifest.schema_version = 1;
  EXPECT_THAT(Message(ValidateImageManifest(manifest)), HasSubstr("schemaVersion: must be 2"));

  manifest = OciImage();
  manifest.media_type = media_types::kOciImageIndex;
  EXPECT_THAT(Message(ValidateImageManifest(manifest)),
              HasSubstr("is not an image manifest media type"));

  manifest = OciImage();
  manifest.layers[0].size = -1;
  EXPECT_THAT(Message(ValidateImageManifest(manifest)), HasSubstr("layers[0].size: must be >= 0"));

  manifest = OciImage();
  manifest.layers[1].digest = Digest();
  EXPECT_THAT(Message(ValidateImageManifest(manifest)),
              HasSubstr("layers[1].digest: required field is missing"));

  manifest = OciImage();
  manifest.layers[0].media_type = "not a media type";
  EXPECT_THAT(Message(ValidateImageManifest(manifest)), HasSubstr("layers[0].mediaType"));

  manifest = OciImage();
  manifest.layers[0].media_type = "application/octet-stream";
  EXPECT_THAT(Message(ValidateImageManifest(manifest)),
              HasSubstr("layers[0].mediaType: \"application/octet-stream\" is not a layer"));

  manifest = OciImage();
  manifest.config = DescribeContent("{}", media_types::kOciEmpty);
  manifest.layers = {DescribeContent("sbom", "application/spdx+json")};
  EXPECT_THAT(Message(ValidateImageManifest(manifest)), HasSubstr("artifactType: required"));
  manifest.artifact_type = "application/vnd.example.sbom";
  EXPECT_THAT(ValidateImageManifest(manifest), IsOk());

  manifest = DockerImage();
  manifest.subject = DescribeContent("m", media_types::kDockerManifest);
  EXPECT_THAT(Message(ValidateImageManifest(manifest)),
              HasSubstr("subject: OCI-only field in a Docker manifest"));
}

TEST(ValidateImageTest, LayersMatchDiffIds) {
  ImageConfig config;
  config.architecture = "amd64";
  config.os = "linux";
  config.rootfs.diff_ids = {Digest()};
  absl::Status status = ValidateImage(OciImage(), config);
  EXPECT_THAT(Message(status), HasSubstr("the manifest has 2 layers but the config's "
                                         "rootfs.diff_ids has 1"));
  config.rootfs.diff_ids.push_back(Digest());
  EXPECT_THAT(ValidateImage(OciImage(), config), IsOk());
}

TEST(ValidateConfigTest, SpecRules) {
  ImageConfig config;
  config.architecture = "amd64";
  config.os = "linux";
  EXPECT_THAT(ValidateImageConfig(config), IsOk());

  ImageConfig bad = config;
  bad.os.clear();
  EXPECT_THAT(Message(ValidateImageConfig(bad)), HasSubstr("os: required field is missing"));
  bad = config;
  bad.rootfs.type = "tarballs";
  EXPECT_THAT(Message(ValidateImageConfig(bad)), HasSubstr("rootfs.type: must be \"layers\""));
  bad = config;
  bad.created = "yesterday";
  EXPECT_THAT(Message(ValidateImageConfig(bad)),
              HasSubstr("created: \"yesterday\" is not an RFC 3339"));
  bad = config;
  bad.config.exposed_ports = {"80/tcp", "http"};
  EXPECT_THAT(Message(ValidateImageConfig(bad)), HasSubstr("config.ExposedPorts.http"));
  bad = config;
  bad.config.env = {"A=1", "=2"};
  EXPECT_THAT(Message(ValidateImageConfig(bad)), HasSubstr("config.Env[1]: expected NAME=value"));
  bad = config;
  bad.rootfs.diff_ids = {DescribeContent("l0", "a/b").digest};
  bad.history = {{.created_by = "COPY a b"}, {.created_by = "RUN x"}};
  EXPECT_THAT(Message(ValidateImageConfig(bad)),
              HasSubstr("history: 2 entries made a layer (empty_layer not true) but "
                        "rootfs.diff_ids has 1"));
  bad.history[1].empty_layer = true;
  EXPECT_THAT(ValidateImageConfig(bad), IsOk());
}

TEST(ValidateIndexTest, Rules) {
  ImageIndex index;
  Descriptor entry = DescribeContent("m", media_types::kOciImageManifest);
  entry.platform = Platform{.architecture = "amd64", .os = "linux"};
  index.manifests = {entry};
  EXPECT_THAT(ValidateImageIndex(index), IsOk());

  ImageIndex mixed = index;
  mixed.manifests.push_back(DescribeContent("d", media_types::kDockerManifest));
  EXPECT_THAT(
      Message(ValidateImageIndex(mixed)),
      HasSubstr("manifests[1] (" + mixed.manifests[1].digest.ToString() + "): Docker media type"));

  ImageIndex docker;
  docker.media_type = media_types::kDockerManifestList;
  docker.manifests = {DescribeContent("d", media_types::kDockerManifest)};
  EXPECT_THAT(Message(ValidateImageIndex(docker)),
              HasSubstr("manifests[0].platform: required in a Docker manifest list"));

  ImageIndex no_os = index;
  no_os.manifests[0].platform->os.clear();
  EXPECT_THAT(Message(ValidateImageIndex(no_os)),
              HasSubstr("manifests[0].platform.os: required field is missing"));
}

}  // namespace
}  // namespace trainpkg::oci
