#include "packager/builder/image_export.h"

#include <fcntl.h>
#include <unistd.h>

#include <filesystem>
#include <string>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;

absl::Status CopyBlob(const oci::Layout& from, const oci::Layout& to, const oci::Descriptor& blob) {
  if (to.HasBlob(blob.digest)) return absl::OkStatus();
  const fs::path source = from.BlobPath(blob.digest);
  const fs::path target = to.BlobPath(blob.digest);
  std::error_code ec;
  fs::create_directories(target.parent_path(), ec);
  if (!ec) {
    // A blob never changes once written (its name is its digest), so a hard link
    // shares it safely; a copy only across file systems or where links fail.
    fs::create_hard_link(source, target, ec);
    // HasBlob: another writer may have put it there meanwhile (EEXIST).
    if (!ec || to.HasBlob(blob.digest)) return absl::OkStatus();
  }
  TP_ASSIGN_OR_RETURN(oci::BlobWriter writer, to.NewBlobWriter(blob.digest.algorithm()));
  int fd = ::open(source.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("reading {}", source.string()));
  std::string buffer(1 << 20, '\0');
  absl::Status status;
  while (status.ok()) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) status = base::ErrnoToStatus(errno, fmt::format("reading {}", source.string()));
    if (n <= 0) break;
    status = writer.Write(std::string_view(buffer.data(), static_cast<size_t>(n)));
  }
  ::close(fd);
  TP_RETURN_IF_ERROR(status);
  // Verified as it is copied: a damaged store blob never reaches the output.
  return writer.CommitExpecting(blob.digest, blob.size).status();
}

}  // namespace

absl::Status CopyImageBlobs(const BuiltImage& image, const oci::Layout& store,
                            const oci::Layout& output, bool lazy_base) {
  for (size_t i = 0; i < image.manifest.layers.size(); ++i) {
    const oci::Descriptor& layer = image.manifest.layers[i];
    const bool from_base = i < image.base_layer_count;
    if (output.HasBlob(layer.digest) || (from_base && lazy_base)) continue;
    if (store.HasBlob(layer.digest)) {
      TP_RETURN_IF_ERROR(CopyBlob(store, output, layer));
    } else if (from_base && image.base_layout.has_value() &&
               image.base_layout->HasBlob(layer.digest)) {
      TP_RETURN_IF_ERROR(CopyBlob(*image.base_layout, output, layer));
    }
  }
  TP_RETURN_IF_ERROR(CopyBlob(store, output, image.config_descriptor));
  return CopyBlob(store, output, image.manifest_descriptor);
}

absl::Status ExportImage(const BuiltImage& image, const oci::Layout& store,
                         const oci::Layout& output, std::string_view tag, bool lazy_base) {
  TP_RETURN_IF_ERROR(CopyImageBlobs(image, store, output, lazy_base));
  // Tagged last: a reader of the layout never finds a tag whose blobs are not
  // all there yet.
  return output.Tag(image.manifest_descriptor, tag);
}

}  // namespace trainpkg::packager::builder
