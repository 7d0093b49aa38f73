// Independent readers and writers: a real image written by our layout code is
// read back by skopeo and unpacked by umoci, and a layout written by umoci is
// read by ours. The tools come from scripts/install-deps.sh; a missing tool
// fails the test saying so.
#include <archive.h>
#include <archive_entry.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "registry/oci/annotations.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/hashing_writer.h"
#include "registry/oci/layout.h"
#include "registry/oci/media_types.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::oci {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;

using trainpkg::testing::Slurp;

std::string Quote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted.push_back(c);
    }
  }
  return quoted + "'";
}

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

CommandResult RunCommand(const std::string& command, const std::filesystem::path& scratch) {
  std::filesystem::path err_path = scratch / "stderr.txt";
  CommandResult result;
  FILE* pipe = ::popen((command + " 2>" + Quote(err_path.string())).c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  size_t n;
  while ((n = std::fread(buffer, 1, sizeof(buffer), pipe)) > 0) result.out.append(buffer, n);
  int status = ::pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  result.err = Slurp(err_path);
  return result;
}

// The bytes written through libarchive's client callbacks.
la_ssize_t AppendToString(struct archive*, void* out, const void* data, size_t size) {
  static_cast<std::string*>(out)->append(static_cast<const char*>(data), size);
  return static_cast<la_ssize_t>(size);
}

struct TarEntry {
  std::string path;
  int mode;  // with file type bits
  std::string content;
};

std::string MakeTar(const std::vector<TarEntry>& entries) {
  std::string out;
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  archive_write_open(a, &out, nullptr, AppendToString, nullptr);
  for (const TarEntry& e : entries) {
    struct archive_entry* entry = archive_entry_new();
    archive_entry_set_pathname(entry, e.path.c_str());
    archive_entry_set_mode(entry, static_cast<mode_t>(e.mode));
    archive_entry_set_size(entry, static_cast<la_int64_t>(e.content.size()));
    archive_entry_set_uid(entry, 0);
    archive_entry_set_gid(entry, 0);
    archive_entry_set_mtime(entry, 1700000000, 0);
    archive_write_header(a, entry);
    if (!e.content.empty()) archive_write_data(a, e.content.data(), e.content.size());
    archive_entry_free(entry);
  }
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

// gzip of `data` through libarchive's raw format, with no block padding (a
// gzip stream followed by zeros is not a valid gzip file for Go readers).
std::string Gzip(const std::string& data) {
  std::string out;
  struct archive* a = archive_write_new();
  archive_write_set_format_raw(a);
  archive_write_add_filter_gzip(a);
  archive_write_set_bytes_per_block(a, 0);
  archive_write_open(a, &out, nullptr, AppendToString, nullptr);
  struct archive_entry* entry = archive_entry_new();
  archive_entry_set_pathname(entry, "layer.tar");
  archive_entry_set_mode(entry, AE_IFREG | 0644);
  archive_entry_set_size(entry, static_cast<la_int64_t>(data.size()));
  archive_write_header(a, entry);
  archive_write_data(a, data.data(), data.size());
  archive_entry_free(entry);
  archive_write_close(a);
  archive_write_free(a);
  return out;
}

class InteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    for (const char* tool : {"skopeo", "umoci"}) {
      CommandResult found = RunCommand(std::string("command -v ") + tool, ::testing::TempDir());
      ASSERT_EQ(found.exit_code, 0) << tool
                                    << " is not installed; it is an independent reader these "
                                       "tests need (scripts/install-deps.sh installs it)";
    }
    std::string pattern = ::testing::TempDir() + "/oci_interop_test_XXXXXX";
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  CommandResult MustRun(const std::string& command) {
    CommandResult result = RunCommand(command, dir_);
    EXPECT_EQ(result.exit_code, 0) << command << "\n" << result.err;
    return result;
  }

  std::filesystem::path dir_;
};

constexpr std::string_view kHello = "hello from trainpkg\n";
constexpr std::string_view kScript = "#!/bin/sh\necho run \"$@\"\n";

struct BuiltImage {
  Descriptor manifest;
  std::string manifest_bytes;
  std::string config_bytes;
  Digest diff_id;
  Digest layer_digest;
};

BuiltImage BuildImage(const Layout& layout) {
  BuiltImage built;
  std::string tar = MakeTar({{"app/", AE_IFDIR | 0755, ""},
                             {"app/hello.txt", AE_IFREG | 0644, std::string(kHello)},
                             {"app/run.sh", AE_IFREG | 0755, std::string(kScript)}});
  std::string gz = Gzip(tar);

  // diff_id on the uncompressed side, digest on the compressed side, the
  // compressed bytes streamed into the layout.
  HashingWriter diff_id;
  EXPECT_THAT(diff_id.Write(tar), IsOk());
  built.diff_id = diff_id.Finish();
  auto blob_writer = layout.NewBlobWriter();
  EXPECT_THAT(blob_writer, IsOk());
  HashingWriter compressed(&*blob_writer);
  EXPECT_THAT(compressed.Write(gz), IsOk());
  Descriptor layer;
  layer.media_type = media_types::kOciLayerGzip;
  layer.size = compressed.size();
  layer.digest = compressed.Finish();
  auto committed = blob_writer->Commit();
  EXPECT_THAT(committed, IsOk());
  EXPECT_EQ(committed->digest, layer.digest);
  built.layer_digest = layer.digest;

  ImageConfig config;
  config.created = "2026-11-22T00:00:00Z";
  config.architecture = "amd64";
  config.os = "linux";
  config.config.env = {"PATH=/usr/local/bin:/usr/bin:/bin", "GREETING=hello"};
  config.config.entrypoint = {"/app/run.sh"};
  config.config.cmd = {"--epochs", "2"};
  config.config.working_dir = "/app";
  config.config.labels = {{"org.example.team", "ml"}};
  config.config.exposed_ports = {"8080/tcp"};
  config.rootfs.diff_ids = {built.diff_id};
  config.history = {{.created = "2026-11-22T00:00:00Z", .created_by = "COPY app /app"},
                    {.created = "2026-11-22T00:00:00Z",
                     .created_by = "ENTRYPOINT [\"/app/run.sh\"]",
                     .empty_layer = true}};
  EXPECT_THAT(ValidateImageConfig(config), IsOk());
  built.config_bytes = SerializeImageConfig(config);
  auto config_descriptor = layout.WriteBlob(built.config_bytes, media_types::kOciImageConfig);
  EXPECT_THAT(config_descriptor, IsOk());

  ImageManifest manifest;
  manifest.config = *config_descriptor;
  manifest.layers = {layer};
  manifest.annotations = ProvenanceAnnotations({.created = "2026-11-22T00:00:00Z"});
  EXPECT_THAT(ValidateImageManifest(manifest), IsOk());
  EXPECT_THAT(ValidateImage(manifest, config), IsOk());
  built.manifest_bytes = SerializeImageManifest(manifest);
  auto manifest_descriptor = layout.WriteBlob(built.manifest_bytes, media_types::kOciImageManifest);
  EXPECT_THAT(manifest_descriptor, IsOk());
  built.manifest = *manifest_descriptor;
  EXPECT_THAT(layout.Tag(built.manifest, "v1"), IsOk());
  return built;
}

std::string TrimNewline(std::string text) {
  while (!text.empty() && text.back() == '\n') text.pop_back();
  return text;
}

TEST_F(InteropTest, SkopeoReadsOurManifestAndConfig) {
  auto layout = Layout::Create(dir_ / "img");
  ASSERT_THAT(layout, IsOk());
  BuiltImage built = BuildImage(*layout);
  std::string ref = Quote("oci:" + (dir_ / "img").string() + ":v1");

  EXPECT_EQ(TrimNewline(MustRun("skopeo inspect --raw " + ref).out), built.manifest_bytes);
  EXPECT_EQ(TrimNewline(MustRun("skopeo inspect --raw --config " + ref).out), built.config_bytes);

  nlohmann::json config = nlohmann::json::parse(MustRun("skopeo inspect --config " + ref).out);
  EXPECT_EQ(config["config"]["Entrypoint"], nlohmann::json({"/app/run.sh"}));
  EXPECT_EQ(config["config"]["Env"],
            nlohmann::json({"PATH=/usr/local/bin:/usr/bin:/bin", "GREETING=hello"}));
  EXPECT_EQ(config["config"]["WorkingDir"], "/app");
  EXPECT_EQ(config["rootfs"]["diff_ids"], nlohmann::json({built.diff_id.ToString()}));

  nlohmann::json summary = nlohmann::json::parse(MustRun("skopeo inspect " + ref).out);
  EXPECT_EQ(summary["Digest"], built.manifest.digest.ToString());
  EXPECT_EQ(summary["Layers"], nlohmann::json({built.layer_digest.ToString()}));
  EXPECT_EQ(summary["Architecture"], "amd64");
  EXPECT_EQ(summary["Os"], "linux");
  EXPECT_EQ(summary["Labels"]["org.example.team"], "ml");
}

TEST_F(InteropTest, SkopeoCopyOfOurLayoutReadsBackIdentical) {
  auto layout = Layout::Create(dir_ / "img");
  ASSERT_THAT(layout, IsOk());
  BuiltImage built = BuildImage(*layout);
  MustRun("skopeo copy " + Quote("oci:" + (dir_ / "img").string() + ":v1") + " " +
          Quote("oci:" + (dir_ / "copy").string() + ":copied"));
  auto copy = Layout::Open(dir_ / "copy");
  ASSERT_THAT(copy, IsOk());
  auto image = copy->ReadImage("copied");
  ASSERT_THAT(image, IsOk());
  EXPECT_EQ(image->descriptor.digest, built.manifest.digest);
  EXPECT_EQ(image->manifest_bytes, built.manifest_bytes);
  EXPECT_TRUE(image->missing_blobs.empty());
  EXPECT_THAT(copy->ReadBlob(image->manifest.layers[0]), IsOk());
}

TEST_F(InteropTest, UmociUnpacksOurImage) {
  auto layout = Layout::Create(dir_ / "img");
  ASSERT_THAT(layout, IsOk());
  BuildImage(*layout);
  std::filesystem::path bundle = dir_ / "bundle";
  MustRun("umoci unpack --rootless --image " + Quote((dir_ / "img").string() + ":v1") + " " +
          Quote(bundle.string()));

  EXPECT_EQ(Slurp(bundle / "rootfs" / "app" / "hello.txt"), kHello);
  EXPECT_EQ(Slurp(bundle / "rootfs" / "app" / "run.sh"), kScript);
  auto perms = std::filesystem::status(bundle / "rootfs" / "app" / "run.sh").permissions();
  EXPECT_NE(perms & std::filesystem::perms::owner_exec, std::filesystem::perms::none);

  nlohmann::json runtime = nlohmann::json::parse(Slurp(bundle / "config.json"));
  EXPECT_EQ(runtime["process"]["args"], nlohmann::json({"/app/run.sh", "--epochs", "2"}));
  EXPECT_EQ(runtime["process"]["cwd"], "/app");
  std::vector<std::string> env = runtime["process"]["env"].get<std::vector<std::string>>();
  EXPECT_THAT(env, Contains("GREETING=hello"));
  EXPECT_THAT(env, Contains("PATH=/usr/local/bin:/usr/bin:/bin"));
}

TEST_F(InteropTest, WeReadALayoutWrittenByUmoci) {
  std::string image = Quote((dir_ / "u").string() + ":base");
  MustRun("umoci init --layout " + Quote((dir_ / "u").string()));
  MustRun("umoci new --image " + image);
  MustRun("umoci config --image " + image +
          " --config.entrypoint /bin/true --config.env A=1 --os linux --architecture arm64 "
          "--tag t1");

  auto layout = Layout::Open(dir_ / "u");
  ASSERT_THAT(layout, IsOk());
  auto tags = layout->ListTags();
  ASSERT_THAT(tags, IsOk());
  std::vector<std::string> names;
  for (const LayoutTag& tag : *tags) names.push_back(tag.tag);
  EXPECT_THAT(names, Contains("t1"));

  auto read = layout->ReadImage("t1");
  ASSERT_THAT(read, IsOk());
  EXPECT_THAT(ValidateImageManifest(read->manifest), IsOk());
  ASSERT_TRUE(read->config.has_value());
  EXPECT_THAT(ValidateImageConfig(*read->config), IsOk());
  EXPECT_EQ(read->config->config.entrypoint, std::vector<std::string>{"/bin/true"});
  EXPECT_THAT(read->config->config.env, Contains("A=1"));
  EXPECT_EQ(read->config->architecture, "arm64");
  EXPECT_TRUE(read->missing_blobs.empty());
  // Our canonical form of umoci's manifest is what it wrote, byte for byte,
  // but for the newline Go's json.Encoder appends.
  EXPECT_EQ(SerializeImageManifest(read->manifest) + "\n", read->manifest_bytes);
}

}  // namespace
}  // namespace trainpkg::oci
