// The builder in-process: a Vertex-style trainer image on an oci: base
// (config, manifest, history, annotations), reproducibility, the layer
// cache, .dockerignore, multi-stage COPY --from, and the errors that must
// name the Dockerfile line.
#include "packager/builder/builder.h"

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/unpack/layer_unpacker.h"
#include "registry/oci/annotations.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/layout.h"
#include "registry/oci/media_types.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
using testing::Build;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::MakeBaseLayout;
using testing::ScratchDir;
using testing::WriteFile;

class BuilderTest : public ::testing::Test {
 protected:
  void SetUp() override {
    base_manifest_ = MakeBaseLayout(dir_.path() / "base", "1");
    ctx_ = dir_.path() / "ctx";
    WriteFile(ctx_ / "trainer/task.py", "print('training')\n");
    WriteFile(ctx_ / "trainer/util/io.py", "def save(): pass\n");
    WriteFile(ctx_ / "trainer/run.sh", "#!/bin/sh\nexec python3 -m trainer.task\n", true);
  }

  void Dockerfile(const std::string& text) { WriteFile(ctx_ / "Dockerfile", text); }
  std::string BaseRef() const { return "oci:" + (dir_.path() / "base").string() + ":1"; }
  BuildRequest Request() const {
    BuildRequest request;
    request.context_dir = ctx_;
    return request;
  }
  std::string VertexDockerfile() const {
    return "FROM " + BaseRef() +
           "\n"
           "WORKDIR /app\n"
           "COPY trainer /app/trainer/\n"
           "ENV PYTHONUNBUFFERED=1 \\\n"
           "    AIP_MODEL_DIR=/model\n"
           "ENTRYPOINT [\"python3\", \"-m\", \"trainer.task\"]\n";
  }

  ScratchDir dir_;
  fs::path ctx_;
  oci::Descriptor base_manifest_;
};

TEST_F(BuilderTest, VertexTrainerConfigAndManifest) {
  Dockerfile(VertexDockerfile());
  auto run = Build(dir_.path() / "home", Request());
  ASSERT_THAT(run.image, IsOk());
  const oci::ImageConfig& config = run.image->config;
  EXPECT_EQ(config.created, "1970-01-01T00:00:00Z");
  EXPECT_EQ(config.architecture, "amd64");
  EXPECT_EQ(config.config.working_dir, "/app");
  EXPECT_THAT(config.config.env,
              ElementsAre("PATH=/bin", "PYTHONUNBUFFERED=1", "AIP_MODEL_DIR=/model"));
  EXPECT_THAT(config.config.entrypoint, ElementsAre("python3", "-m", "trainer.task"));
  EXPECT_TRUE(config.config.cmd.empty()) << "ENTRYPOINT resets the base's CMD";
  ASSERT_EQ(config.rootfs.diff_ids.size(), 2u);
  ASSERT_EQ(config.history.size(), 5u);
  EXPECT_EQ(config.history[1].created_by, "WORKDIR /app");
  EXPECT_TRUE(config.history[1].empty_layer);
  EXPECT_EQ(config.history[2].created_by, "COPY trainer /app/trainer/ # buildkit");
  EXPECT_FALSE(config.history[2].empty_layer);
  EXPECT_EQ(config.history[3].created_by, "ENV PYTHONUNBUFFERED=1 AIP_MODEL_DIR=/model");
  EXPECT_TRUE(config.history[4].empty_layer);

  const oci::ImageManifest& manifest = run.image->manifest;
  EXPECT_EQ(manifest.media_type, oci::media_types::kOciImageManifest);
  ASSERT_EQ(manifest.layers.size(), 2u);
  EXPECT_EQ(manifest.layers[1].media_type, oci::media_types::kOciLayerGzip);
  EXPECT_EQ(manifest.annotations.at(std::string(oci::annotations::kBaseDigest)),
            base_manifest_.digest.ToString());
  EXPECT_EQ(manifest.annotations.at(std::string(oci::annotations::kCreated)),
            "1970-01-01T00:00:00Z");
  EXPECT_EQ(run.image->base_layer_count, 1u);
  // Steps: FROM, WORKDIR, COPY (start + done), ENV, ENTRYPOINT.
  ASSERT_EQ(run.steps.size(), 6u);
  EXPECT_EQ(run.steps[0].text, "FROM " + BaseRef());
  EXPECT_EQ(run.steps[0].total, 5);
  EXPECT_TRUE(run.steps[3].done);
  EXPECT_FALSE(run.steps[3].cached);
}

TEST_F(BuilderTest, SameContextGivesSameDigestsAcrossStoresMtimesAndDays) {
  Dockerfile(VertexDockerfile());
  BuildRequest request = Request();
  request.source_date_epoch = 1700000000;
  auto first = Build(dir_.path() / "home1", request);
  ASSERT_THAT(first.image, IsOk());
  // Fresh store and cache, files touched now (newer than the epoch: clamped).
  for (const auto& entry : fs::recursive_directory_iterator(ctx_)) {
    fs::last_write_time(entry.path(), fs::file_time_type::clock::now());
  }
  auto second = Build(dir_.path() / "home2", request);
  ASSERT_THAT(second.image, IsOk());
  EXPECT_EQ(first.image->manifest_descriptor.digest, second.image->manifest_descriptor.digest);
  EXPECT_EQ(second.image->stats.layers_written, 1);
  EXPECT_EQ(first.image->config.created, "2023-11-14T22:13:20Z");

  request.source_date_epoch = 1700086400;  // another day
  auto other_day = Build(dir_.path() / "home3", request);
  ASSERT_THAT(other_day.image, IsOk());
  EXPECT_NE(other_day.image->manifest_descriptor.digest, first.image->manifest_descriptor.digest);
}

TEST_F(BuilderTest, UnchangedRebuildIsAllCachedAndReadsNoFile) {
  Dockerfile(VertexDockerfile() + "COPY trainer/run.sh /usr/local/bin/\n");
  auto first = Build(dir_.path() / "home", Request());
  ASSERT_THAT(first.image, IsOk());
  EXPECT_EQ(first.image->stats.layers_written, 2);
  auto second = Build(dir_.path() / "home", Request());
  ASSERT_THAT(second.image, IsOk());
  EXPECT_EQ(second.image->stats.layers_written, 0);
  EXPECT_EQ(second.image->stats.layers_cached, 2);
  EXPECT_EQ(second.image->stats.files_hashed, 0);
  EXPECT_EQ(second.image->manifest_descriptor.digest, first.image->manifest_descriptor.digest);
  int cached_steps = 0;
  for (const BuildStep& step : second.steps) cached_steps += step.done && step.cached;
  EXPECT_EQ(cached_steps, 2);

  WriteFile(ctx_ / "trainer/task.py", "print('changed')\n");
  auto third = Build(dir_.path() / "home", Request());
  ASSERT_THAT(third.image, IsOk());
  EXPECT_EQ(third.image->stats.layers_written, 2) << "the changed layer and the one after it";
  EXPECT_NE(third.image->manifest_descriptor.digest, first.image->manifest_descriptor.digest);
}

// A base pushed to another registry carries another manifest (the builder
// writes its base's name into org.opencontainers.image.base.name; a registry
// may recompress), so another manifest digest, while its config and layers
// are the same: the layers built on it are the same, and hit the cache.
// (Keyed by the manifest digest, images built FROM a base pushed to a fresh
// registry were rebuilt from their first RUN: dockerfiles/build-bases.sh.)
TEST_F(BuilderTest, TheSameBaseUnderAnotherManifestKeepsTheCache) {
  Dockerfile(VertexDockerfile());
  auto first = Build(dir_.path() / "home", Request());
  ASSERT_THAT(first.image, IsOk());
  EXPECT_EQ(first.image->stats.layers_written, 1);

  auto layout = oci::Layout::Open(dir_.path() / "base");
  ASSERT_THAT(layout, IsOk());
  auto bytes = layout->ReadBlob(base_manifest_);
  ASSERT_THAT(bytes, IsOk());
  auto manifest = oci::ParseImageManifest(*bytes);
  ASSERT_THAT(manifest, IsOk());
  manifest->annotations[std::string(oci::annotations::kBaseName)] = "127.0.0.1:5001/other:1";
  auto other = layout->WriteBlob(oci::SerializeImageManifest(*manifest),
                                 oci::media_types::kOciImageManifest);
  ASSERT_THAT(other, IsOk());
  ASSERT_NE(other->digest, base_manifest_.digest);
  ASSERT_THAT(layout->Tag(*other, "2"), IsOk());

  std::string dockerfile = VertexDockerfile();
  dockerfile.replace(dockerfile.find(BaseRef()), BaseRef().size(),
                     "oci:" + (dir_.path() / "base").string() + ":2");
  Dockerfile(dockerfile);
  auto second = Build(dir_.path() / "home", Request());
  ASSERT_THAT(second.image, IsOk());
  EXPECT_EQ(second.image->stats.layers_written, 0);
  EXPECT_EQ(second.image->stats.layers_cached, 1);
  EXPECT_EQ(second.image->manifest.layers.back().digest,
            first.image->manifest.layers.back().digest);
}

TEST_F(BuilderTest, ScratchMultiStageAndDockerignore) {
  WriteFile(ctx_ / ".dockerignore", "trainer/util\n*.md\n");
  WriteFile(ctx_ / "NOTES.md", "notes\n");
  Dockerfile(
      "FROM scratch AS files\n"
      "COPY trainer/ /src/\n"
      "FROM scratch\n"
      "COPY --from=files --chown=1000:1000 /src/task.py /app/\n"
      "CMD [\"/app/task.py\"]\n");
  auto run = Build(dir_.path() / "home", Request());
  ASSERT_THAT(run.image, IsOk());
  EXPECT_EQ(run.image->manifest.layers.size(), 1u);
  EXPECT_THAT(run.image->config.config.cmd, ElementsAre("/app/task.py"));
  EXPECT_FALSE(run.image->manifest.annotations.count(std::string(oci::annotations::kBaseDigest)));

  Dockerfile("FROM scratch\nCOPY *.md /docs/\n");
  auto ignored = Build(dir_.path() / "home", Request());
  ASSERT_FALSE(ignored.image.ok());
  EXPECT_THAT(ignored.image.status().message(), HasSubstr("matches nothing"));
}

TEST_F(BuilderTest, ShellFormUsesShell) {
  Dockerfile(
      "FROM scratch\nSHELL [\"/bin/busybox\", \"sh\", \"-c\"]\nCMD echo hi\n"
      "EXPOSE 8080 9000-9001/udp\nUSER 1000\nLABEL a=b\n");
  BuildRequest request = Request();
  request.labels = {{"org.example.team", "ml"}};
  auto run = Build(dir_.path() / "home", request);
  ASSERT_THAT(run.image, IsOk());
  const oci::ContainerConfig& c = run.image->config.config;
  EXPECT_THAT(c.cmd, ElementsAre("/bin/busybox", "sh", "-c", "echo hi"));
  EXPECT_THAT(c.exposed_ports, ElementsAre("8080/tcp", "9000/udp", "9001/udp"));
  EXPECT_EQ(c.user, "1000");
  EXPECT_EQ(c.labels.at("a"), "b");
  EXPECT_EQ(c.labels.at("org.example.team"), "ml");
  EXPECT_TRUE(run.image->manifest.layers.empty());
}

TEST_F(BuilderTest, AddUnpacksArchivesAndTheCacheTellsAddFromCopy) {
  testing::ShellResult made = testing::Sh("tar -C " + ctx_.string() + " -czf " +
                                          (ctx_ / "trainer.tgz").string() + " trainer");
  ASSERT_EQ(made.code, 0) << made.out;
  Dockerfile("FROM scratch\nADD trainer.tgz /app/\n");
  auto added = Build(dir_.path() / "home", Request());
  ASSERT_THAT(added.image, IsOk());
  EXPECT_EQ(added.image->stats.layers_written, 1);
  EXPECT_TRUE(fs::is_empty(dir_.path() / "home/build-cache/tmp"))
      << "contents staged beside the cache, then removed";
  auto again = Build(dir_.path() / "home", Request());
  ASSERT_THAT(again.image, IsOk());
  EXPECT_EQ(again.image->stats.layers_cached, 1) << "an unchanged archive is a cache hit";
  EXPECT_EQ(again.image->manifest_descriptor.digest, added.image->manifest_descriptor.digest);

  Dockerfile("FROM scratch\nCOPY trainer.tgz /app/\n");
  auto copied = Build(dir_.path() / "home", Request());
  ASSERT_THAT(copied.image, IsOk());
  EXPECT_EQ(copied.image->stats.layers_written, 1) << "COPY of the archive is another layer";
  EXPECT_NE(copied.image->manifest.layers[0].digest, added.image->manifest.layers[0].digest);

  WriteFile(ctx_ / "trainer/task.py", "print('changed')\n");
  made = testing::Sh("tar -C " + ctx_.string() + " -czf " + (ctx_ / "trainer.tgz").string() +
                     " trainer");
  ASSERT_EQ(made.code, 0) << made.out;
  Dockerfile("FROM scratch\nADD trainer.tgz /app/\n");
  auto changed = Build(dir_.path() / "home", Request());
  ASSERT_THAT(changed.image, IsOk());
  EXPECT_EQ(changed.image->stats.layers_written, 1) << "a changed archive is rebuilt";
  EXPECT_NE(changed.image->manifest.layers[0].digest, added.image->manifest.layers[0].digest);
}

// Issue 16 finding 12: one rule on both sides (docs/adr/2026-11-27-symlinks-
// resolve-inside-the-root.md): a context symlink climbing out of the root is
// kept as written, and trainpkg's own unpacker takes the layer.
TEST_F(BuilderTest, ClimbingContextSymlinkRoundTripsThroughTheUnpacker) {
  fs::create_symlink("../../../../etc/passwd", ctx_ / "trainer/up");
  Dockerfile("FROM scratch\nCOPY trainer /app/trainer/\n");
  auto run = Build(dir_.path() / "home", Request());
  ASSERT_THAT(run.image, IsOk());
  auto store = oci::Layout::Open(dir_.path() / "home/images");
  ASSERT_THAT(store, IsOk());
  const fs::path rootfs = dir_.path() / "rootfs";
  fs::create_directories(rootfs);
  unpack::UnpackOptions options;
  options.preserve_ownership = false;
  absl::Status unpacked = unpack::UnpackLayers(*store, run.image->manifest.layers,
                                               run.image->config.rootfs.diff_ids, rootfs, options);
  ASSERT_THAT(unpacked, IsOk());
  EXPECT_EQ(fs::read_symlink(rootfs / "app/trainer/up").string(), "../../../../etc/passwd");
}

// The entries of the last layer of `image` in the store under `home`, by name.
std::map<std::string, packager::testing::ReadEntry> LastLayer(const fs::path& home,
                                                              const BuiltImage& image) {
  std::map<std::string, packager::testing::ReadEntry> entries;
  auto store = oci::Layout::Open(home / "images");
  EXPECT_THAT(store, IsOk());
  if (!store.ok() || image.manifest.layers.empty()) return entries;
  const std::string blob =
      trainpkg::testing::Slurp(store->BlobPath(image.manifest.layers.back().digest));
  for (auto& entry : packager::testing::ReadTar(blob)) entries[entry.name] = entry;
  return entries;
}

// Issue #17 item 9: without SOURCE_DATE_EPOCH, COPY keeps each file's mtime
// (Docker's rule), so the mtime is part of the layer and of its cache key: a
// touched file is a new layer, never the cached one with the old mtime.
TEST_F(BuilderTest, WithoutAnEpochCopyKeepsMtimesAndATouchedFileIsANewLayer) {
  const fs::path home = dir_.path() / "home";
  Dockerfile("FROM scratch\nCOPY trainer /app/trainer/\n");
  constexpr int64_t kFirst = 1'650'000'000;
  constexpr int64_t kSecond = 1'750'000'000;  // after the epoch below
  packager::testing::SetMtime(ctx_ / "trainer/task.py", kFirst);
  auto first = Build(home, Request());
  ASSERT_THAT(first.image, IsOk());
  EXPECT_EQ(LastLayer(home, *first.image)["app/trainer/task.py"].mtime, kFirst);

  packager::testing::SetMtime(ctx_ / "trainer/task.py", kSecond);
  auto touched = Build(home, Request());
  ASSERT_THAT(touched.image, IsOk());
  EXPECT_EQ(touched.image->stats.layers_written, 1) << "the mtime is in the layer and its key";
  EXPECT_EQ(LastLayer(home, *touched.image)["app/trainer/task.py"].mtime, kSecond);
  EXPECT_NE(touched.image->manifest_descriptor.digest, first.image->manifest_descriptor.digest);

  BuildRequest clamped = Request();
  clamped.source_date_epoch = 1'700'000'000;
  auto with_epoch = Build(home, clamped);
  ASSERT_THAT(with_epoch.image, IsOk());
  EXPECT_EQ(LastLayer(home, *with_epoch.image)["app/trainer/task.py"].mtime, 1'700'000'000)
      << "min(T, SOURCE_DATE_EPOCH)";
}

TEST_F(BuilderTest, CopyHeredocWritesItsBodyAndKeysTheLayerOnIt) {
  const fs::path home = dir_.path() / "home";
  auto dockerfile = [&](const std::string& motd) {
    Dockerfile(
        "FROM scratch\n"
        "ARG LR=0.1\n"
        "ENV NAME=trainer\n"
        "WORKDIR /app\n"
        "COPY <<EOF config.yaml\n"
        "lr: ${LR}\n"
        "name: \"$NAME\"\n"
        "EOF\n"
        "COPY --chmod=600 --chown=7:8 <<-\"EOT\" <<two.txt trainer/task.py /etc/\n"
        "\t" +
        motd +
        "\n"
        "\tEOT\n"
        "$NAME\n"
        "two.txt\n"
        "USER 1000\n");
  };
  dockerfile("$NOT_EXPANDED");
  BuildRequest request = Request();
  request.build_args = {{"LR", "0.5"}};
  auto first = Build(home, request);
  ASSERT_THAT(first.image, IsOk());
  ASSERT_EQ(first.image->manifest.layers.size(), 2u);
  EXPECT_EQ(first.image->stats.layers_written, 2);
  BuiltImage config_only = *first.image;
  config_only.manifest.layers.pop_back();
  auto config = LastLayer(home, config_only);
  ASSERT_TRUE(config.count("app/config.yaml"));
  EXPECT_EQ(config["app/config.yaml"].content, "lr: 0.5\nname: \"trainer\"\n");
  EXPECT_EQ(config["app/config.yaml"].mode, 0644u);
  EXPECT_EQ(config["app/config.yaml"].type, 'f');
  auto etc = LastLayer(home, *first.image);
  ASSERT_TRUE(etc.count("etc/EOT") && etc.count("etc/two.txt") && etc.count("etc/task.py"));
  EXPECT_EQ(etc["etc/EOT"].content, "$NOT_EXPANDED\n") << "quoted: not expanded; <<-: no tabs";
  EXPECT_EQ(etc["etc/two.txt"].content, "trainer\n");
  EXPECT_EQ(etc["etc/EOT"].mode, 0600u);
  EXPECT_EQ(etc["etc/EOT"].uid, 7);
  EXPECT_EQ(etc["etc/EOT"].gid, 8);
  EXPECT_EQ(etc["etc/task.py"].content, "print('training')\n");
  // History names the instruction with its heredoc as written.
  bool found = false;
  for (const oci::HistoryEntry& h : first.image->config.history) {
    found = found ||
            h.created_by == "COPY <<EOF config.yaml\nlr: ${LR}\nname: \"$NAME\"\nEOF # buildkit";
  }
  EXPECT_TRUE(found);

  auto unchanged = Build(home, request);
  ASSERT_THAT(unchanged.image, IsOk());
  EXPECT_EQ(unchanged.image->stats.layers_cached, 2);
  EXPECT_EQ(unchanged.image->stats.layers_written, 0);
  EXPECT_EQ(unchanged.image->manifest_descriptor.digest, first.image->manifest_descriptor.digest);

  // The same Dockerfile, another build arg: the expanded body changes the first layer.
  request.build_args = {{"LR", "0.7"}};
  auto other_arg = Build(home, request);
  ASSERT_THAT(other_arg.image, IsOk());
  EXPECT_EQ(other_arg.image->stats.layers_written, 2) << "the changed layer and the one after it";
  EXPECT_NE(other_arg.image->manifest.layers[0].digest, first.image->manifest.layers[0].digest);

  // A changed body is a cache miss too.
  request.build_args = {{"LR", "0.5"}};
  dockerfile("changed");
  auto changed = Build(home, request);
  ASSERT_THAT(changed.image, IsOk());
  EXPECT_EQ(changed.image->stats.layers_cached, 1);
  EXPECT_EQ(changed.image->stats.layers_written, 1);
  EXPECT_EQ(LastLayer(home, *changed.image)["etc/EOT"].content, "changed\n");
}

TEST_F(BuilderTest, CopyFromAStageReadsItsHeredocFiles) {
  Dockerfile(
      "FROM scratch AS gen\n"
      "COPY <<EOF /out/settings.ini\n"
      "[a]\\nb=1\n"
      "EOF\n"
      "FROM scratch\n"
      "COPY --from=gen /out/settings.ini /etc/app.ini\n"
      "COPY --from=gen /out /copied/\n");
  const fs::path home = dir_.path() / "home";
  auto run = Build(home, Request());
  ASSERT_THAT(run.image, IsOk());
  ASSERT_EQ(run.image->manifest.layers.size(), 2u);
  BuiltImage first = *run.image;
  first.manifest.layers.pop_back();
  EXPECT_EQ(LastLayer(home, first)["etc/app.ini"].content, "[a]\\nb=1\n");
  EXPECT_EQ(LastLayer(home, *run.image)["copied/settings.ini"].content, "[a]\\nb=1\n");
}

TEST_F(BuilderTest, EveryCompressionSettingIsPartOfTheLayerKey) {
  Dockerfile("FROM scratch\nCOPY trainer /app/\n");
  std::vector<std::string> digests;
  for (auto [compression, level] :
       std::vector<std::pair<LayerCompression, int>>{{LayerCompression::kGzip, 6},
                                                     {LayerCompression::kGzip, 1},
                                                     {LayerCompression::kZstd, 3},
                                                     {LayerCompression::kZstd, 19},
                                                     {LayerCompression::kNone, 0}}) {
    BuildRequest request = Request();
    request.compression = compression;
    if (level != 0) request.compression_level = level;
    auto run = Build(dir_.path() / "home", request);  // one cache for all five
    ASSERT_THAT(run.image, IsOk());
    EXPECT_EQ(run.image->stats.layers_written, 1) << "level " << level;
    digests.push_back(run.image->manifest.layers[0].digest.ToString());
  }
  std::sort(digests.begin(), digests.end());
  EXPECT_EQ(std::unique(digests.begin(), digests.end()), digests.end()) << "five different layers";
}

struct ErrorCase {
  std::string name;
  std::string dockerfile;
  std::string expected;  // substring, after "Dockerfile:LINE: "
};

class BuilderErrorTest : public BuilderTest, public ::testing::WithParamInterface<ErrorCase> {};

TEST_P(BuilderErrorTest, NamesTheLine) {
  fs::create_symlink("/etc/passwd", ctx_ / "leak");
  fs::create_symlink("../..", ctx_ / "up");
  Dockerfile(GetParam().dockerfile);
  auto run = Build(dir_.path() / "home", Request());
  ASSERT_FALSE(run.image.ok());
  EXPECT_THAT(std::string(run.image.status().message()), HasSubstr(GetParam().expected));
  EXPECT_FALSE(fs::exists(dir_.path() / "home/build-cache/layers"))
      << "nothing is written for a failing build";
}

INSTANTIATE_TEST_SUITE_P(
    Errors, BuilderErrorTest,
    ::testing::Values(
        ErrorCase{"UnknownInstruction", "FROM scratch\nCOPPY a b\n", "Dockerfile:2: "},
        ErrorCase{"BadFlag", "FROM scratch\nCOPY --bogus=1 trainer /t\n", "Dockerfile:2: COPY"},
        ErrorCase{"MissingFile", "FROM scratch\n\nCOPY nothere.txt /t\n",
                  "Dockerfile:3: COPY: source \"nothere.txt\" not found"},
        ErrorCase{"OutsideContext", "FROM scratch\nCOPY ../secret /t\n",
                  "Dockerfile:2: COPY: source \"../secret\""},
        ErrorCase{"SymlinkEscaping", "FROM scratch\nCOPY leak /t\n",
                  "Dockerfile:2: COPY: source \"leak\" is a symlink"},
        ErrorCase{"SymlinkDirEscaping", "FROM scratch\nCOPY up/etc/hosts /t\n",
                  "Dockerfile:2: COPY: source \"up/etc/hosts\" is a symlink"},
        ErrorCase{"SeveralSourcesNeedDirectory",
                  "FROM scratch\nCOPY trainer/task.py trainer/run.sh /t\n",
                  "Dockerfile:2: COPY: 2 sources are copied"},
        ErrorCase{"ChownName", "FROM scratch\nCOPY --chown=alice trainer /t\n",
                  "Dockerfile:2: COPY: --chown: user \"alice\" is not numeric"},
        ErrorCase{"HeredocAndSourceNeedDirectory",
                  "FROM scratch\nCOPY <<EOF trainer/task.py /t\nx\nEOF\n",
                  "Dockerfile:2: COPY: 2 sources are copied"},
        ErrorCase{"HeredocNameIsNoFileName", "FROM scratch\nCOPY <<a/b /t/\nx\na/b\n",
                  "Dockerfile:2: COPY: heredoc <<a/b names the file"},
        ErrorCase{"HeredocUnterminated", "FROM scratch\nUSER 1\nRUN <<EOF\nx\n",
                  "Dockerfile:3: RUN: heredoc <<EOF is never terminated"}),
    [](const ::testing::TestParamInfo<ErrorCase>& param_info) { return param_info.param.name; });

}  // namespace
}  // namespace trainpkg::packager::builder
