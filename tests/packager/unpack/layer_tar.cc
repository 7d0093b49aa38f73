#include "tests/packager/unpack/layer_tar.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/sysmacros.h>

#include <cstdlib>
#include <iostream>

#include "registry/oci/digest_builder.h"
#include "registry/oci/media_types.h"

namespace trainpkg::packager::unpack::testing {
namespace {

void Check(int r, struct archive* a) {
  if (r != ARCHIVE_OK) {
    std::cerr << "libarchive: " << ::archive_error_string(a) << "\n";
    std::abort();
  }
}

std::string Write(const std::string& tar, Compression compression) {
  if (compression == Compression::kNone) return tar;
  struct archive* a = ::archive_write_new();
  Check(::archive_write_set_format_raw(a), a);
  Check(compression == Compression::kGzip ? ::archive_write_add_filter_gzip(a)
                                          : ::archive_write_add_filter_zstd(a),
        a);
  std::string out(tar.size() + 65536, '\0');
  size_t used = 0;
  Check(::archive_write_open_memory(a, out.data(), out.size(), &used), a);
  struct archive_entry* entry = ::archive_entry_new();
  ::archive_entry_set_filetype(entry, AE_IFREG);
  Check(::archive_write_header(a, entry), a);
  ::archive_write_data(a, tar.data(), tar.size());
  ::archive_entry_free(entry);
  Check(::archive_write_close(a), a);
  ::archive_write_free(a);
  out.resize(used);
  return out;
}

}  // namespace

LayerTar& LayerTar::File(const std::string& path, const std::string& content, int mode) {
  entries_.push_back(Entry{path, AE_IFREG, mode, content, false});
  return *this;
}
LayerTar& LayerTar::Dir(const std::string& path, int mode) {
  entries_.push_back(Entry{path, AE_IFDIR, mode, "", false});
  return *this;
}
LayerTar& LayerTar::Symlink(const std::string& path, const std::string& target) {
  entries_.push_back(Entry{path, AE_IFLNK, 0777, target, false});
  return *this;
}
LayerTar& LayerTar::Hardlink(const std::string& path, const std::string& target) {
  entries_.push_back(Entry{path, AE_IFREG, 0644, target, true});
  return *this;
}
LayerTar& LayerTar::CharDevice(const std::string& path) {
  entries_.push_back(Entry{path, AE_IFCHR, 0666, "", false});
  return *this;
}
LayerTar& LayerTar::Fifo(const std::string& path) {
  entries_.push_back(Entry{path, AE_IFIFO, 0644, "", false});
  return *this;
}

std::string LayerTar::Bytes(Compression compression) const {
  struct archive* a = ::archive_write_new();
  Check(::archive_write_set_format_pax_restricted(a), a);
  size_t capacity = 1 << 20;
  for (const Entry& e : entries_) capacity += e.content.size() + 4096;
  std::string out(capacity, '\0');
  size_t used = 0;
  Check(::archive_write_open_memory(a, out.data(), out.size(), &used), a);
  for (const Entry& e : entries_) {
    struct archive_entry* entry = ::archive_entry_new();
    ::archive_entry_set_pathname(entry, e.path.c_str());
    ::archive_entry_set_filetype(entry, e.type);
    ::archive_entry_set_perm(entry, static_cast<mode_t>(e.mode));
    ::archive_entry_set_mtime(entry, 1000000000, 0);
    if (e.hardlink) {
      ::archive_entry_set_hardlink(entry, e.content.c_str());
      ::archive_entry_set_size(entry, 0);
    } else if (e.type == AE_IFLNK) {
      ::archive_entry_set_symlink(entry, e.content.c_str());
    } else if (e.type == AE_IFREG) {
      ::archive_entry_set_size(entry, static_cast<la_int64_t>(e.content.size()));
    } else if (e.type == AE_IFCHR) {
      ::archive_entry_set_rdev(entry, ::makedev(1, 3));
    }
    Check(::archive_write_header(a, entry), a);
    if (e.type == AE_IFREG && !e.hardlink && !e.content.empty()) {
      ::archive_write_data(a, e.content.data(), e.content.size());
    }
    ::archive_entry_free(entry);
  }
  Check(::archive_write_close(a), a);
  ::archive_write_free(a);
  out.resize(used);
  return Write(out, compression);
}

StoredLayer StoreLayer(const oci::Layout& layout, const LayerTar& tar, Compression compression) {
  std::string plain = tar.Bytes(Compression::kNone);
  std::string bytes = tar.Bytes(compression);
  std::string_view media_type = compression == Compression::kNone ? oci::media_types::kOciLayer
                                : compression == Compression::kGzip
                                    ? oci::media_types::kOciLayerGzip
                                    : oci::media_types::kOciLayerZstd;
  absl::StatusOr<oci::Descriptor> descriptor = layout.WriteBlob(bytes, media_type);
  if (!descriptor.ok()) {
    std::cerr << descriptor.status() << "\n";
    std::abort();
  }
  return StoredLayer{*descriptor, oci::Sha256Digest(plain)};
}

}  // namespace trainpkg::packager::unpack::testing
