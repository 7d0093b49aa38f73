#include "sdk/internal/derived_image.h"

#include "absl/strings/str_split.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/builder.h"
#include "packager/builder/image_export.h"
#include "packager/builder/image_store.h"
#include "registry/oci/layout.h"

namespace trainpkg::sdk::internal {
namespace {

constexpr char kDefaultPath[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";

// The image's PATH (Docker's default when it sets none).
std::string ImagePath(const oci::ContainerConfig& config) {
  for (const std::string& entry : config.env) {
    if (entry.starts_with("PATH=")) return entry.substr(5);
  }
  return kDefaultPath;
}

// FailedPrecondition, naming `field`, when no directory of the image's PATH
// holds a python3 (a file or a symlink) in `rootfs`.
absl::Status CheckPython(std::string_view field, std::string_view image_uri,
                         const oci::ContainerConfig& config, const std::filesystem::path& rootfs) {
  const std::string path = ImagePath(config);
  for (absl::string_view dir : absl::StrSplit(path, ':', absl::SkipEmpty())) {
    std::error_code ec;
    std::filesystem::path candidate =
        rootfs / std::filesystem::path(std::string(dir)).relative_path() / "python3";
    // The link itself: python3 is usually a symlink, and an absolute one,
    // followed from the host, would leave the rootfs.
    if (std::filesystem::exists(std::filesystem::symlink_status(candidate, ec))) {
      return absl::OkStatus();
    }
  }
  return absl::FailedPreconditionError(fmt::format(
      "{}: the image \"{}\" has no python3 on its PATH ({}); a Python trainer runs with "
      "`python3` and its packages install with `python3 -m pip`: use an executor image with "
      "Python 3 and pip",
      field, image_uri, path));
}

}  // namespace

absl::StatusOr<ResolvedImage> ResolvePythonExecutor(const ImageResolver& resolver,
                                                    const packager::unpack::RootfsCache& rootfs,
                                                    const jobspec::ImageUri& image,
                                                    std::string_view field) {
  const std::string& image_uri = image.ToString();
  absl::StatusOr<ResolvedImage> executor = resolver.Resolve(image);
  if (!executor.ok()) return base::WithContext(executor.status(), field);
  absl::StatusOr<std::filesystem::path> root = rootfs.Get(executor->layout, executor->image);
  if (!root.ok()) {
    return base::WithContext(
        base::WithContext(root.status(), fmt::format("unpacking \"{}\"", image_uri)), field);
  }
  TP_RETURN_IF_ERROR(CheckPython(field, image_uri, executor->image.config->config, *root));
  return executor;
}

bool StoreHasImage(const std::filesystem::path& home, const std::string& tag) {
  absl::StatusOr<oci::Layout> store = oci::Layout::Open(home / "images");
  return store.ok() && store->ReadImage(tag).ok();
}

absl::StatusOr<packager::builder::StoreLock> HoldStoreForBuild(const std::filesystem::path& home) {
  const std::filesystem::path store_dir = home / "images";
  std::error_code ec;
  std::filesystem::create_directories(store_dir, ec);
  if (ec) {
    return absl::InternalError(fmt::format("creating {}: {}", store_dir.string(), ec.message()));
  }
  // Shared: builds run side by side, and a prune waits until what they write
  // is tagged.
  return packager::builder::StoreLock::ForCollection(store_dir,
                                                     packager::builder::StoreLock::Mode::kShared);
}

absl::Status BuildDerivedImage(const DerivedImageBuild& build) {
  auto log = [&build](std::string_view line) {
    if (build.log) build.log(line);
  };
  TP_ASSIGN_OR_RETURN(packager::builder::ImageStore store,
                      packager::builder::ImageStore::Open(build.home / "images"));
  // The base is always an oci: layout, so no registry client is needed.
  packager::builder::Builder builder(packager::builder::BuilderOptions{
      .store = store.layout(),
      .cache_dir = build.home / "build-cache",
      .registry = nullptr,
      .progress =
          [&log](const packager::builder::BuildStep& step) {
            if (!step.done) log(fmt::format("Step {}/{}: {}", step.index, step.total, step.text));
          },
      .rootfs_dir = build.home / "rootfs",
      .run_output =
          [&log](std::string_view text) {
            for (absl::string_view line : absl::StrSplit(
                     absl::string_view(text.data(), text.size()), '\n', absl::SkipEmpty())) {
              log(std::string_view(line.data(), line.size()));
            }
          },
  });
  packager::builder::BuildRequest request;
  request.context_dir = build.context_dir;
  request.dockerfile = build.dockerfile;
  // The store keeps layers uncompressed; a push compresses them
  // (docs/adr/2026-11-24-store-layers-uncompressed.md).
  request.compression = packager::LayerCompression::kNone;
  TP_ASSIGN_OR_RETURN(packager::builder::BuiltImage image, builder.Build(request));
  // The store keeps the executor's layers too (an oci: base's stay where
  // they are otherwise), so the image stays whole.
  TP_RETURN_IF_ERROR(
      packager::builder::CopyImageBlobs(image, store.layout(), store.layout(), false));
  return store.Tag(image.manifest_descriptor, build.tag).status();
}

}  // namespace trainpkg::sdk::internal
