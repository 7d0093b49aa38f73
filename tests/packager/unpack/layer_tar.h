// Hand-made layer tars for unpack tests (libarchive writer), including the
// malicious ones a builder would never produce, and a layout to hold them.
#ifndef TRAINPKG_TESTS_PACKAGER_UNPACK_LAYER_TAR_H_
#define TRAINPKG_TESTS_PACKAGER_UNPACK_LAYER_TAR_H_

#include <filesystem>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::unpack::testing {

enum class Compression { kNone, kGzip, kZstd, kBzip2, kXz };

class LayerTar {
 public:
  LayerTar& File(const std::string& path, const std::string& content, int mode = 0644);
  LayerTar& Dir(const std::string& path, int mode = 0755);
  LayerTar& Symlink(const std::string& path, const std::string& target);
  LayerTar& Hardlink(const std::string& path, const std::string& target);
  LayerTar& CharDevice(const std::string& path);
  LayerTar& Fifo(const std::string& path);

  // The tar, compressed as asked.
  std::string Bytes(Compression compression) const;

 private:
  struct Entry {
    std::string path;
    unsigned type = 0;  // AE_IF*
    int mode = 0;
    std::string content;  // file data, or the link target
    bool hardlink = false;
  };
  std::vector<Entry> entries_;
};

struct StoredLayer {
  oci::Descriptor descriptor;
  oci::Digest diff_id;
};

// Writes `tar` compressed as asked into `layout`, with the media type of
// that compression (bzip2 and xz, which have none, abort).
StoredLayer StoreLayer(const oci::Layout& layout, const LayerTar& tar,
                       Compression compression = Compression::kGzip);

// Writes `tar` compressed as asked into `layout` labelled `media_type`
// (which may lie about the compression).
StoredLayer StoreLayerAs(const oci::Layout& layout, const LayerTar& tar, Compression compression,
                         std::string_view media_type);

// A decompression bomb: a tar+gzip layer holding one file `path` of
// `zero_bytes` zeros (200 MB compress to about 200 KB), streamed, never
// held in memory.
StoredLayer StoreZeroFileLayer(const oci::Layout& layout, const std::string& path,
                               int64_t zero_bytes);

}  // namespace trainpkg::packager::unpack::testing

#endif  // TRAINPKG_TESTS_PACKAGER_UNPACK_LAYER_TAR_H_
