// Fuzz target: an oci-layout directory whose index.json is the input (after
// a first line naming the image the `oci:DIR[:TAG]` way). The layout holds
// one real image (config, manifest, no layer blob), so an index that points
// at it reads that image. Goes through ParseLayoutReference, ReadIndex,
// ListTags, Resolve, MissingBlobs and ReadImage. Must never crash, hang or
// trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "fmt/format.h"
#include "registry/oci/layout.h"
#include "registry/oci/layout_reference.h"
#include "registry/oci/media_types.h"
#include "tests/fuzz/fuzz_scratch.h"

namespace {

// The config of a one-layer image; the layout holds it and the manifest,
// not the layer (a shallow image).
constexpr char kConfig[] =
    R"({"architecture":"amd64","os":"linux","config":{},"rootfs":{"type":"layers",)"
    R"("diff_ids":["sha256:5f70bf18a086007016e948b04aed3b82103a36bea41755b6cddfaf10ace3c6ef"]}})";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t newline = text.find('\n');
  std::string_view reference_text = text.substr(0, newline);
  std::string_view index_json =
      newline == std::string_view::npos ? std::string_view() : text.substr(newline + 1);

  absl::StatusOr<oci::LayoutReference> reference = oci::ParseLayoutReference(reference_text);
  if (reference.ok()) (void)oci::FormatLayoutReference(*reference);
  (void)oci::ValidateRefName(reference_text);

  base::TempDir dir = fuzz::ScratchDir();
  absl::StatusOr<oci::Layout> layout = oci::Layout::Create(dir.path());
  TP_CHECK(layout.ok(), "layout: {}", layout.status().ToString());
  absl::StatusOr<oci::Descriptor> config =
      layout->WriteBlob(kConfig, oci::media_types::kOciImageConfig);
  TP_CHECK(config.ok(), "config blob");
  const std::string manifest = fmt::format(
      R"({{"schemaVersion":2,"mediaType":"{}","config":{{"mediaType":"{}","digest":"{}","size":{}}},)"
      R"("layers":[{{"mediaType":"{}","digest":"sha256:{}","size":32}}]}})",
      oci::media_types::kOciImageManifest, oci::media_types::kOciImageConfig,
      config->digest.ToString(), config->size, oci::media_types::kOciLayerGzip, std::string(64, '0'));
  TP_CHECK(layout->WriteBlob(manifest, oci::media_types::kOciImageManifest).ok(), "manifest blob");
  fuzz::WriteScratchFile(dir.path() / "index.json", index_json);

  absl::StatusOr<oci::Layout> opened = oci::Layout::Open(dir.path());
  if (!opened.ok()) return 0;
  absl::StatusOr<oci::ImageIndex> index = opened->ReadIndex();
  if (!index.ok()) return 0;
  (void)opened->ListTags();
  const std::string tag = reference.ok() ? reference->tag : std::string();
  absl::StatusOr<oci::Descriptor> root = opened->Resolve(tag);
  if (root.ok()) (void)opened->MissingBlobs(*root);
  (void)opened->ReadImage(tag, oci::Platform{.architecture = "amd64", .os = "linux"});
  return 0;
}
