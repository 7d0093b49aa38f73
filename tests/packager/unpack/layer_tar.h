// Hand-made layer tars for unpack tests (libarchive writer), including the
// malicious ones a builder would never produce, and a layout to hold them.
#ifndef TRAINPKG_TESTS_PACKAGER_UNPACK_LAYER_TAR_H_
#define TRAINPKG_TESTS_PACKAGER_UNPACK_LAYER_TAR_H_

#include <filesystem>
#include <string>
#include <vector>

#include "registry/oci/descriptor.h"
#include "registry/oci/digest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::unpack::testing {

enum class Compression { kNone, kGzip, kZstd };

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

// Writes `tar` compressed as asked into `layout`.
StoredLayer StoreLayer(const oci::Layout& layout, const LayerTar& tar,
                       Compression compression = Compression::kGzip);

}  // namespace trainpkg::packager::unpack::testing

#endif  // TRAINPKG_TESTS_PACKAGER_UNPACK_LAYER_TAR_H_
