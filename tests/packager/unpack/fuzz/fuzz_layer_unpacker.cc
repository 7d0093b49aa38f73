// Fuzz target: any bytes as an image layer blob, unpacked onto a scratch
// rootfs that already holds a few files (so whiteouts, links and
// directory-over-file cases have something to meet). The first byte picks
// the descriptor's media type (tar, tar+gzip, tar+zstd); the blob's own
// digest is its descriptor digest and diff_id. Must never crash, hang, trip
// a sanitizer or write outside the rootfs; errors are fine.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "base/check.h"
#include "packager/unpack/layer_unpacker.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/media_types.h"
#include "tests/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  if (size == 0) return 0;
  constexpr std::string_view kMediaTypes[] = {oci::media_types::kOciLayer,
                                              oci::media_types::kOciLayerGzip,
                                              oci::media_types::kOciLayerZstd};
  std::string_view blob(reinterpret_cast<const char*>(data) + 1, size - 1);
  base::TempDir dir = fuzz::ScratchDir();
  const std::filesystem::path blob_path = dir.path() / "layer";
  const std::filesystem::path rootfs = dir.path() / "rootfs";
  const std::filesystem::path outside = dir.path() / "outside";
  fuzz::WriteScratchFile(blob_path, blob);
  std::filesystem::create_directories(rootfs / "etc");
  std::filesystem::create_directories(rootfs / "app/data");
  std::filesystem::create_directories(outside);
  fuzz::WriteScratchFile(rootfs / "etc/passwd", "root:x:0:0:root:/root:/bin/sh\n");
  fuzz::WriteScratchFile(rootfs / "app/data/a.txt", "a");
  std::filesystem::create_symlink("../outside", rootfs / "escape");

  oci::DigestBuilder builder;
  builder.Update(blob);
  oci::Descriptor layer;
  layer.media_type = std::string(kMediaTypes[data[0] % 3]);
  layer.digest = builder.Finish();
  layer.size = static_cast<int64_t>(blob.size());
  packager::unpack::UnpackOptions options;
  options.preserve_ownership = false;
  (void)packager::unpack::UnpackLayer(blob_path, layer, layer.digest, rootfs, options);
  TP_CHECK(std::filesystem::is_empty(outside), "the layer wrote outside the rootfs");
  return 0;
}
