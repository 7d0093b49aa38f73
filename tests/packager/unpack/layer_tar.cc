#include "tests/packager/unpack/layer_tar.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/sysmacros.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>

#include "registry/oci/blob_writer.h"
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
  switch (compression) {
    case Compression::kGzip:
      Check(::archive_write_add_filter_gzip(a), a);
      break;
    case Compression::kZstd:
      Check(::archive_write_add_filter_zstd(a), a);
      break;
    case Compression::kBzip2:
      Check(::archive_write_add_filter_bzip2(a), a);
      break;
    case Compression::kXz:
      Check(::archive_write_add_filter_xz(a), a);
      break;
    case Compression::kNone:
      break;
  }
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

StoredLayer StoreLayerAs(const oci::Layout& layout, const LayerTar& tar, Compression compression,
                         std::string_view media_type) {
  std::string plain = tar.Bytes(Compression::kNone);
  std::string bytes = tar.Bytes(compression);
  absl::StatusOr<oci::Descriptor> descriptor = layout.WriteBlob(bytes, media_type);
  if (!descriptor.ok()) {
    std::cerr << descriptor.status() << "\n";
    std::abort();
  }
  return StoredLayer{*descriptor, oci::Sha256Digest(plain)};
}

StoredLayer StoreLayer(const oci::Layout& layout, const LayerTar& tar, Compression compression) {
  switch (compression) {
    case Compression::kNone:
      return StoreLayerAs(layout, tar, compression, oci::media_types::kOciLayer);
    case Compression::kGzip:
      return StoreLayerAs(layout, tar, compression, oci::media_types::kOciLayerGzip);
    case Compression::kZstd:
      return StoreLayerAs(layout, tar, compression, oci::media_types::kOciLayerZstd);
    case Compression::kBzip2:
    case Compression::kXz:
      break;
  }
  std::cerr << "StoreLayer: no layer media type for bzip2 or xz; use StoreLayerAs\n";
  std::abort();
}

namespace {

// The plain tar goes through `plain` (its diff_id hashed on the way) into
// `gzip`, a raw gzip writer whose output lands in a blob writer.
struct BombWriter {
  oci::DigestBuilder diff_id{oci::DigestAlgorithm::kSha256};
  struct archive* gzip = nullptr;
  oci::BlobWriter* blob = nullptr;

  static la_ssize_t Plain(struct archive*, void* self, const void* data, size_t n) {
    auto* w = static_cast<BombWriter*>(self);
    w->diff_id.Update(std::string_view(static_cast<const char*>(data), n));
    return ::archive_write_data(w->gzip, data, n);
  }
  static la_ssize_t Compressed(struct archive*, void* self, const void* data, size_t n) {
    auto* w = static_cast<BombWriter*>(self);
    absl::Status written = w->blob->Write(std::string_view(static_cast<const char*>(data), n));
    return written.ok() ? static_cast<la_ssize_t>(n) : -1;
  }
};

}  // namespace

StoredLayer StoreZeroFileLayer(const oci::Layout& layout, const std::string& path,
                               int64_t zero_bytes) {
  absl::StatusOr<oci::BlobWriter> blob = layout.NewBlobWriter(oci::DigestAlgorithm::kSha256);
  if (!blob.ok()) {
    std::cerr << blob.status() << "\n";
    std::abort();
  }
  BombWriter w;
  w.blob = &*blob;
  w.gzip = ::archive_write_new();
  Check(::archive_write_set_format_raw(w.gzip), w.gzip);
  Check(::archive_write_add_filter_gzip(w.gzip), w.gzip);
  Check(::archive_write_set_bytes_per_block(w.gzip, 0), w.gzip);
  Check(::archive_write_open(w.gzip, &w, nullptr, &BombWriter::Compressed, nullptr), w.gzip);
  struct archive_entry* raw = ::archive_entry_new();
  ::archive_entry_set_filetype(raw, AE_IFREG);
  Check(::archive_write_header(w.gzip, raw), w.gzip);
  ::archive_entry_free(raw);

  struct archive* tar = ::archive_write_new();
  Check(::archive_write_set_format_pax_restricted(tar), tar);
  Check(::archive_write_open(tar, &w, nullptr, &BombWriter::Plain, nullptr), tar);
  struct archive_entry* entry = ::archive_entry_new();
  ::archive_entry_set_pathname(entry, path.c_str());
  ::archive_entry_set_filetype(entry, AE_IFREG);
  ::archive_entry_set_perm(entry, 0644);
  ::archive_entry_set_size(entry, zero_bytes);
  Check(::archive_write_header(tar, entry), tar);
  ::archive_entry_free(entry);
  const std::string zeros(1 << 20, '\0');
  for (int64_t left = zero_bytes; left > 0;) {
    const size_t n = static_cast<size_t>(std::min<int64_t>(left, zeros.size()));
    ::archive_write_data(tar, zeros.data(), n);
    left -= static_cast<int64_t>(n);
  }
  Check(::archive_write_close(tar), tar);
  ::archive_write_free(tar);
  Check(::archive_write_close(w.gzip), w.gzip);
  ::archive_write_free(w.gzip);
  absl::StatusOr<oci::DigestAndSize> stored = blob->Commit();
  if (!stored.ok()) {
    std::cerr << stored.status() << "\n";
    std::abort();
  }
  oci::Descriptor descriptor;
  descriptor.media_type = oci::media_types::kOciLayerGzip;
  descriptor.digest = stored->digest;
  descriptor.size = stored->size;
  return StoredLayer{descriptor, w.diff_id.Finish()};
}

}  // namespace trainpkg::packager::unpack::testing
