// One entry of a layer tar, fully decided: name, type, attributes, and where
// its content comes from. The planner makes them; the tar writer writes them.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_TAR_ENTRY_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_TAR_ENTRY_H_

#include <cstdint>
#include <filesystem>
#include <string>

#include "packager/layer/layer_entry.h"

namespace trainpkg::packager::layer_internal {

struct TarEntry {
  enum class Type { kFile, kDirectory, kSymlink, kHardlink };

  std::string name;  // image path: no leading or trailing '/', never empty
  Type type = Type::kFile;
  std::filesystem::path source;  // kFile: read `size` bytes from here; empty: no content
  int64_t size = 0;              // kFile only
  uint32_t mode = 0;             // permission bits (07777)
  Owner owner;
  int64_t mtime = 0;
  std::string link_target;  // kSymlink: the link text; kHardlink: the name it links to
};

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_TAR_ENTRY_H_
