// bench/bigimage's "ours" for the unpack row: the layers of one image of an
// OCI layout applied to an empty directory by packager/unpack, the code a
// job's replicas get their rootfs from (RootfsCache unpacks the same way
// into its temporary directory), so it is timed against `umoci unpack` and
// `tar -x` on the same input with no CLI around it.
//
//   bigimage_unpack_image LAYOUT TAG DEST
#include <cstdio>
#include <filesystem>
#include <string>

#include "packager/unpack/layer_unpacker.h"
#include "registry/oci/layout.h"

int main(int argc, char** argv) {
  namespace unpack = trainpkg::packager::unpack;
  if (argc != 4) {
    std::fprintf(stderr, "usage: %s LAYOUT TAG DEST (DEST: an empty directory, created)\n",
                 argv[0]);
    return 2;
  }
  absl::StatusOr<trainpkg::oci::Layout> layout = trainpkg::oci::Layout::Open(argv[1]);
  if (!layout.ok()) {
    std::fprintf(stderr, "%s\n", std::string(layout.status().message()).c_str());
    return 1;
  }
  absl::StatusOr<trainpkg::oci::LayoutImage> image = layout->ReadImage(argv[2]);
  if (!image.ok() || !image->config.has_value()) {
    std::fprintf(stderr, "%s: no image with a config tagged %s\n", argv[1], argv[2]);
    return 1;
  }
  std::error_code ec;
  std::filesystem::create_directories(argv[3], ec);
  unpack::UnpackOptions options;
  options.clear_set_id_bits = true;  // as the rootfs cache
  absl::Status status = unpack::UnpackLayers(*layout, image->manifest.layers,
                                             image->config->rootfs.diff_ids, argv[3], options);
  if (!status.ok()) {
    std::fprintf(stderr, "%s\n", std::string(status.message()).c_str());
    return 1;
  }
  return 0;
}
