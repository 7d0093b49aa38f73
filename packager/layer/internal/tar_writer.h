// Writes planned entries as a tar stream with libarchive, into a ByteSink.
//
// Format: POSIX ustar headers, with a PAX extended header only for an entry
// that needs one (a name or link target longer than ustar holds, non-ASCII
// text, ids or sizes out of ustar range): libarchive's "restricted pax". So
// ordinary entries are plain ustar, long names work, and no atime/ctime
// records are ever written (the entries carry none). Names carry no "./"
// prefix; directories end in '/'. The stream ends with the two zero blocks of
// the tar end marker and no further padding.
//
// Not thread-safe. `sink` (not owned) must outlive the writer.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_TAR_WRITER_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_TAR_WRITER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "packager/layer/internal/tar_entry.h"
#include "registry/oci/byte_sink.h"

struct archive;

namespace trainpkg::packager::layer_internal {

class TarWriter {
 public:
  static absl::StatusOr<std::unique_ptr<TarWriter>> Open(oci::ByteSink* sink);
  ~TarWriter();
  TarWriter(const TarWriter&) = delete;
  TarWriter& operator=(const TarWriter&) = delete;

  // Writes the header and, for a kFile with a source, its content, read in
  // chunks. FailedPrecondition naming the file when it changed size or type
  // since it was planned; the sink's error when writing fails.
  absl::Status Add(const TarEntry& entry);
  // Writes the end marker and flushes. REQUIRES: called once, last.
  absl::Status Close();

 private:
  explicit TarWriter(oci::ByteSink* sink);
  absl::Status ArchiveError(int code, std::string_view what);
  absl::Status CopyContent(const TarEntry& entry);
  static long WriteCallback(struct archive* archive, void* self, const void* data, size_t size);

  oci::ByteSink* sink_;
  absl::Status sink_status_;
  struct archive* archive_ = nullptr;
  std::string buffer_;
};

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_TAR_WRITER_H_
