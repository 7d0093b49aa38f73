#include "tests/packager/builder/builder_test_util.h"

#include <stdlib.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "packager/layer/layer_writer.h"
#include "registry/oci/layout.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::builder::testing {

namespace fs = std::filesystem;

namespace {
void Check(bool ok, const char* what) {
  if (!ok) {
    std::fprintf(stderr, "test setup failed: %s\n", what);
    std::abort();
  }
}
}  // namespace

ScratchDir::ScratchDir() {
  std::string pattern = (fs::temp_directory_path() / "trainpkg-builder-XXXXXX").string();
  Check(::mkdtemp(pattern.data()) != nullptr, "mkdtemp");
  path_ = pattern;
}

ScratchDir::~ScratchDir() {
  std::error_code ec;
  fs::remove_all(path_, ec);
}

void WriteFile(const fs::path& path, const std::string& content, bool executable) {
  fs::create_directories(path.parent_path());
  std::ofstream(path, std::ios::binary | std::ios::trunc) << content;
  if (executable) fs::permissions(path, fs::perms::owner_exec, fs::perm_options::add);
  fs::last_write_time(path, fs::file_time_type::clock::now() - std::chrono::hours(1));
}

oci::Descriptor MakeBaseLayout(const fs::path& dir, const std::string& tag) {
  ScratchDir rootfs;
  WriteFile(rootfs.path() / "etc/base.txt", "from the base\n");
  auto layout = oci::Layout::Create(dir);
  Check(layout.ok(), "layout");
  auto writer = layout->NewBlobWriter();
  Check(writer.ok(), "blob writer");
  auto layer = WriteLayer(LayerSource::DirectoryTree(rootfs.path()), LayerOptions{}, &*writer);
  Check(layer.ok(), "layer");
  auto blob = writer->Commit();
  Check(blob.ok(), "commit");
  oci::ImageConfig config;
  config.architecture = "amd64";
  config.os = "linux";
  config.config.env = {"PATH=/bin"};
  config.config.cmd = {"/bin/sh"};
  config.rootfs.diff_ids = {layer->diff_id};
  config.history = {{"1970-01-01T00:00:00Z", "base layer", "", "", false}};
  auto config_desc =
      layout->WriteBlob(oci::SerializeImageConfig(config), oci::media_types::kOciImageConfig);
  Check(config_desc.ok(), "config");
  oci::ImageManifest manifest;
  manifest.config = *config_desc;
  oci::Descriptor layer_desc;
  layer_desc.media_type = std::string(oci::media_types::kOciLayerGzip);
  layer_desc.digest = blob->digest;
  layer_desc.size = blob->size;
  manifest.layers = {layer_desc};
  auto manifest_desc =
      layout->WriteBlob(oci::SerializeImageManifest(manifest), oci::media_types::kOciImageManifest);
  Check(manifest_desc.ok(), "manifest");
  Check(layout->Tag(*manifest_desc, tag).ok(), "tag");
  return *manifest_desc;
}

BuildRun Build(const fs::path& home, BuildRequest request) {
  BuildRun run;
  auto store = oci::Layout::Create(home / "images");
  Check(store.ok(), "store");
  BuilderOptions options{*store,  home / "build-cache",
                         nullptr, [&run](const BuildStep& step) { run.steps.push_back(step); },
                         {},      {}};
  Builder builder(std::move(options));
  run.image = builder.Build(request);
  return run;
}

}  // namespace trainpkg::packager::builder::testing
