// JSON in and out for manifests, indexes and configs: golden bytes, round
// trips, canonical stability and error paths.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/annotations.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_index.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::oci {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kConfigHex =
    "b79606fb3afea5bd1609ed40b622142f1c98125abcfe89a76a661b0e8e343910";  // sha256("config")
constexpr std::string_view kLayerHex =
    "dac1d7cfa95021764849fd102524e141488c5e3a90f861dbb5a12d9ac8584f85";  // sha256("layer")
constexpr std::string_view kManifestHex =
    "05b3abf2579a5eb66403cd78be557fd860633a1fe2103c7642030defe32c657f";  // sha256("manifest")

ImageManifest SampleManifest() {
  ImageManifest manifest;
  manifest.config = DescribeContent("config", media_types::kOciImageConfig);
  Descriptor layer = DescribeContent("layer", media_types::kOciLayerGzip);
  layer.annotations[std::string(annotations::kTitle)] = "app.tar.gz";
  manifest.layers.push_back(layer);
  manifest.annotations = ProvenanceAnnotations(
      {.created = "2026-11-22T00:00:00Z", .base_name = "docker.io/library/debian:12"});
  return manifest;
}

const std::string kManifestGolden =
    std::string(R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",)") +
    R"("config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:)" +
    std::string(kConfigHex) + R"(","size":6},"layers":[{"mediaType":)" +
    R"("application/vnd.oci.image.layer.v1.tar+gzip","digest":"sha256:)" + std::string(kLayerHex) +
    R"(","size":5,"annotations":{"org.opencontainers.image.title":"app.tar.gz"}}],)" +
    R"("annotations":{"org.opencontainers.image.base.name":"docker.io/library/debian:12",)" +
    R"("org.opencontainers.image.created":"2026-11-22T00:00:00Z"}})";

TEST(ImageManifestJsonTest, GoldenBytes) {
  EXPECT_EQ(SerializeImageManifest(SampleManifest()), kManifestGolden);
}

TEST(ImageManifestJsonTest, RoundTrip) {
  auto parsed = ParseImageManifest(kManifestGolden);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, SampleManifest());
  EXPECT_THAT(ValidateImageManifest(*parsed), IsOk());
  EXPECT_EQ(SerializeImageManifest(*parsed), kManifestGolden);
}

TEST(ImageManifestJsonTest, CanonicalBytesAreStable) {
  // The same content, reordered, indented and with an unknown field, gives
  // the same canonical bytes and so the same digest.
  std::string messy = std::string(R"({
    "annotations": {"org.opencontainers.image.created": "2026-11-22T00:00:00Z",
                    "org.opencontainers.image.base.name": "docker.io/library/debian:12"},
    "layers": [{"size": 5, "annotations": {"org.opencontainers.image.title": "app.tar.gz"},
                "digest": "sha256:)") +
                      std::string(kLayerHex) + R"(",
                "mediaType": "application/vnd.oci.image.layer.v1.tar+gzip", "urls": null}],
    "x-unknown": [1, 2],
    "config": {"digest": "sha256:)" +
                      std::string(kConfigHex) +
                      R"(", "size": 6, "mediaType": "application/vnd.oci.image.config.v1+json"},
    "mediaType": "application/vnd.oci.image.manifest.v1+json",
    "schemaVersion": 2
  })";
  auto parsed = ParseImageManifest(messy);
  ASSERT_THAT(parsed, IsOk());
  std::string first = SerializeImageManifest(*parsed);
  EXPECT_EQ(first, kManifestGolden);
  for (int i = 0; i < 3; ++i) EXPECT_EQ(SerializeImageManifest(*parsed), first);
  EXPECT_EQ(Sha256Digest(first), Sha256Digest(kManifestGolden));
}

TEST(ImageManifestJsonTest, OmitsEmptyOptionals) {
  ImageManifest manifest;
  manifest.config = DescribeContent("config", media_types::kOciImageConfig);
  EXPECT_EQ(
      SerializeImageManifest(manifest),
      std::string(
          R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.manifest.v1+json",)") +
          R"("config":{"mediaType":"application/vnd.oci.image.config.v1+json","digest":"sha256:)" +
          std::string(kConfigHex) + R"(","size":6},"layers":[]})");
}

TEST(ImageManifestJsonTest, EscapesLikeGo) {
  ImageManifest manifest = SampleManifest();
  manifest.annotations = {{"k", "a<b>&c\xe2\x80\xa8"}};
  EXPECT_THAT(SerializeImageManifest(manifest),
              HasSubstr(R"("annotations":{"k":"a\u003cb\u003e\u0026c\u2028"}})"));
  auto parsed = ParseImageManifest(SerializeImageManifest(manifest));
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->annotations.at("k"), "a<b>&c\xe2\x80\xa8");
}

TEST(ImageManifestJsonTest, ErrorsNameTheJsonPath) {
  struct Case {
    std::string json;
    std::string message;
  } cases[] = {
      {"{", "image manifest: invalid JSON"},
      {"[]", "image manifest: expected an object"},
      {R"({"config":{}})", "image manifest: schemaVersion: required field is missing"},
      {R"({"schemaVersion":2})", "config: required field is missing"},
      {R"({"schemaVersion":2,"config":{"mediaType":"a/b","digest":"sha256:)" +
           std::string(kConfigHex) + R"(","size":"6"}})",
       "config.size: expected an integer, got \"6\""},
      {R"({"schemaVersion":2,"config":{"mediaType":"a/b","digest":"sha256:)" +
           std::string(kConfigHex) + R"(","size":6},"layers":[)" +
           R"({"mediaType":"a/b","digest":"sha256:)" + std::string(kLayerHex) +
           R"(","size":1},{"mediaType":"a/b","digest":"sha256:XYZ","size":1}]})",
       "layers[1].digest: invalid digest \"sha256:XYZ\""},
      {R"({"schemaVersion":2,"config":{"mediaType":"a/b","digest":"sha256:)" +
           std::string(kConfigHex) + R"(","size":6,"annotations":{"k":1}}})",
       "config.annotations.k: expected a string, got 1"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseImageManifest(c.json);
    ASSERT_FALSE(parsed.ok()) << c.json;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(c.message));
  }
}

ImageIndex SampleIndex() {
  ImageIndex index;
  Descriptor amd64 = DescribeContent("manifest", media_types::kOciImageManifest);
  amd64.platform = Platform{.architecture = "amd64", .os = "linux"};
  Descriptor arm64 = DescribeContent("layer", media_types::kOciImageManifest);
  arm64.platform = Platform{.architecture = "arm64",
                            .os = "linux",
                            .os_version = "6.1",
                            .os_features = {"f1"},
                            .variant = "v8"};
  index.manifests = {amd64, arm64};
  return index;
}

TEST(ImageIndexJsonTest, GoldenBytesAndRoundTrip) {
  std::string golden =
      std::string(R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json",)") +
      R"("manifests":[{"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:)" +
      std::string(kManifestHex) +
      R"(","size":8,"platform":{"architecture":"amd64","os":"linux"}},)" +
      R"({"mediaType":"application/vnd.oci.image.manifest.v1+json","digest":"sha256:)" +
      std::string(kLayerHex) +
      R"(","size":5,"platform":{"architecture":"arm64","os":"linux","os.version":"6.1",)" +
      R"("os.features":["f1"],"variant":"v8"}}]})";
  EXPECT_EQ(SerializeImageIndex(SampleIndex()), golden);
  auto parsed = ParseImageIndex(golden);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, SampleIndex());
  EXPECT_THAT(ValidateImageIndex(*parsed), IsOk());
  EXPECT_EQ(
      SerializeImageIndex(ImageIndex{}),
      R"({"schemaVersion":2,"mediaType":"application/vnd.oci.image.index.v1+json","manifests":[]})");
}

TEST(ImageIndexJsonTest, ErrorsNameTheJsonPath) {
  auto parsed = ParseImageIndex(R"({"schemaVersion":2,"manifests":[{"mediaType":"a/b",)"
                                R"("digest":"sha256:)" +
                                std::string(kLayerHex) + R"(","size":5,"platform":{"os":7}}]})");
  ASSERT_FALSE(parsed.ok());
  EXPECT_THAT(std::string(parsed.status().message()),
              HasSubstr("image index: manifests[0].platform.os: expected a string, got 7"));
}

ImageConfig SampleConfig() {
  ImageConfig config;
  config.created = "2026-11-22T00:00:00Z";
  config.author = "trainpkg";
  config.architecture = "amd64";
  config.os = "linux";
  config.config.user = "1000:1000";
  config.config.exposed_ports = {"8080/tcp", "53/udp"};
  config.config.env = {"PATH=/usr/bin:/bin", "GREETING=hi"};
  config.config.entrypoint = {"/app/trainer"};
  config.config.cmd = {"--epochs", "3"};
  config.config.volumes = {"/data"};
  config.config.working_dir = "/app";
  config.config.labels = {{"b", "2"}, {"a", "1"}};
  config.config.stop_signal = "SIGTERM";
  config.rootfs.diff_ids = {Sha256Digest("layer")};
  config.history = {
      {.created = "2026-11-22T00:00:00Z", .created_by = "COPY trainer /app/", .comment = "c"},
      {.created = "2026-11-22T00:00:00Z", .created_by = "ENV GREETING=hi", .empty_layer = true},
  };
  return config;
}

const std::string kConfigGolden =
    std::string(
        R"({"created":"2026-11-22T00:00:00Z","author":"trainpkg","architecture":"amd64",)") +
    R"("os":"linux","config":{"User":"1000:1000","ExposedPorts":{"53/udp":{},"8080/tcp":{}},)" +
    R"("Env":["PATH=/usr/bin:/bin","GREETING=hi"],"Entrypoint":["/app/trainer"],)" +
    R"("Cmd":["--epochs","3"],"Volumes":{"/data":{}},"WorkingDir":"/app",)" +
    R"("Labels":{"a":"1","b":"2"},"StopSignal":"SIGTERM"},"rootfs":{"type":"layers",)" +
    R"("diff_ids":["sha256:)" + std::string(kLayerHex) + R"("]},"history":[)" +
    R"({"created":"2026-11-22T00:00:00Z","created_by":"COPY trainer /app/","comment":"c"},)" +
    R"({"created":"2026-11-22T00:00:00Z","created_by":"ENV GREETING=hi","empty_layer":true}]})";

TEST(ImageConfigJsonTest, GoldenBytesAndRoundTrip) {
  EXPECT_EQ(SerializeImageConfig(SampleConfig()), kConfigGolden);
  auto parsed = ParseImageConfig(kConfigGolden);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, SampleConfig());
  EXPECT_THAT(ValidateImageConfig(*parsed), IsOk());
}

TEST(ImageConfigJsonTest, MinimalConfigKeepsRequiredObjects) {
  ImageConfig config;
  config.architecture = "arm64";
  config.os = "linux";
  EXPECT_EQ(
      SerializeImageConfig(config),
      R"({"architecture":"arm64","os":"linux","config":{},"rootfs":{"type":"layers","diff_ids":[]}})");
}

TEST(ImageConfigJsonTest, KeepsUnknownDockerFields) {
  std::string docker = R"({"architecture":"amd64","os":"linux","docker_version":"24.0.7",
    "config":{"Cmd":["bash"],"Shell":["/bin/sh","-c"],"Healthcheck":{"Test":["NONE"]}},
    "container_config":{"Cmd":["/bin/sh"]},"rootfs":{"type":"layers","diff_ids":[]},
    "history":null})";
  auto parsed = ParseImageConfig(docker);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(parsed->config.cmd, std::vector<std::string>{"bash"});
  EXPECT_TRUE(parsed->history.empty());
  EXPECT_EQ(SerializeImageConfig(*parsed),
            R"({"architecture":"amd64","os":"linux","config":{"Cmd":["bash"],)"
            R"("Healthcheck":{"Test":["NONE"]},"Shell":["/bin/sh","-c"]},)"
            R"("rootfs":{"type":"layers","diff_ids":[]},)"
            R"("container_config":{"Cmd":["/bin/sh"]},"docker_version":"24.0.7"})");
}

TEST(ImageConfigJsonTest, ErrorsNameTheJsonPath) {
  struct Case {
    std::string json;
    std::string message;
  } cases[] = {
      {R"({"architecture":"amd64","os":"linux"})",
       "image config: rootfs: required field is missing"},
      {R"({"os":"linux","rootfs":{"type":"layers","diff_ids":["sha256:1"]}})",
       "rootfs.diff_ids[0]: invalid digest"},
      {R"({"os":"linux","config":{"Env":["A=1",2]},"rootfs":{"type":"layers"}})",
       "config.Env[1]: expected a string, got 2"},
      {R"({"os":"linux","history":[{"empty_layer":"yes"}],"rootfs":{"type":"layers"}})",
       "history[0].empty_layer: expected true or false"},
  };
  for (const Case& c : cases) {
    auto parsed = ParseImageConfig(c.json);
    ASSERT_FALSE(parsed.ok()) << c.json;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(parsed.status().message()), HasSubstr(c.message));
  }
}

TEST(DescriptorJsonTest, RoundTripsEveryField) {
  Descriptor descriptor = DescribeContent("layer", media_types::kOciLayerNondistributableGzip);
  descriptor.urls = {"https://example.com/layer"};
  descriptor.annotations = {{"k", "v"}};
  descriptor.data = "bGF5ZXI=";
  descriptor.artifact_type = "application/x-test";
  std::string json = SerializeDescriptor(descriptor);
  EXPECT_EQ(json,
            std::string(
                R"({"mediaType":"application/vnd.oci.image.layer.nondistributable.v1.tar+gzip",)") +
                R"("digest":"sha256:)" + std::string(kLayerHex) +
                R"(","size":5,"urls":["https://example.com/layer"],"annotations":{"k":"v"},)" +
                R"("data":"bGF5ZXI=","artifactType":"application/x-test"})");
  auto parsed = ParseDescriptor(json);
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, descriptor);
}

}  // namespace
}  // namespace trainpkg::oci

namespace trainpkg::oci {
namespace {

TEST(AnnotationsTest, Rfc3339AndProvenance) {
  absl::Time time = absl::FromUnixSeconds(1700000000) + absl::Milliseconds(250);
  EXPECT_EQ(FormatRfc3339(time), "2023-11-14T22:13:20Z");
  auto parsed = ParseRfc3339("2023-11-14T23:13:20.25+01:00");
  ASSERT_THAT(parsed, IsOk());
  EXPECT_EQ(*parsed, time);
  EXPECT_EQ(ParseRfc3339("2023-11-14").status().code(), absl::StatusCode::kInvalidArgument);

  Annotations provenance = ProvenanceAnnotations({.created = FormatRfc3339(time),
                                                  .revision = "abc123",
                                                  .base_digest = Sha256Digest("m").ToString()});
  EXPECT_EQ(provenance,
            (Annotations{{std::string(annotations::kCreated), "2023-11-14T22:13:20Z"},
                         {std::string(annotations::kRevision), "abc123"},
                         {std::string(annotations::kBaseDigest), Sha256Digest("m").ToString()}}));
}

}  // namespace
}  // namespace trainpkg::oci
