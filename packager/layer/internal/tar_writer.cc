#include "packager/layer/internal/tar_writer.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "base/unique_fd.h"
#include "fmt/format.h"

namespace trainpkg::packager::layer_internal {
namespace {

constexpr size_t kReadChunk = size_t{1} << 20;
constexpr int kBytesPerBlock = 64 * 1024;

absl::StatusOr<size_t> ReadSome(int fd, char* data, size_t size, const std::string& path) {
  for (;;) {
    ssize_t n = ::read(fd, data, size);
    if (n >= 0) return static_cast<size_t>(n);
    if (errno != EINTR) return base::ErrnoToStatus(errno, fmt::format("reading {}", path));
  }
}

absl::Status Changed(const std::string& path) {
  return absl::FailedPreconditionError(
      fmt::format("{} changed while the layer was being written", path));
}

}  // namespace

TarWriter::TarWriter(oci::ByteSink* sink) : sink_(sink) {}

TarWriter::~TarWriter() {
  if (archive_ != nullptr) archive_write_free(archive_);
}

absl::StatusOr<std::unique_ptr<TarWriter>> TarWriter::Open(oci::ByteSink* sink) {
  std::unique_ptr<TarWriter> writer(new TarWriter(sink));
  writer->archive_ = archive_write_new();
  if (writer->archive_ == nullptr) return absl::ResourceExhaustedError("archive_write_new failed");
  struct archive* a = writer->archive_;
  // Restricted pax: plain ustar headers, with a pax extended header only for
  // an entry that ustar cannot describe (a long name, a large size or id), so
  // every extractor reads the layer and the headers hold nothing the entry
  // does not need.
  TP_RETURN_IF_ERROR(writer->ArchiveError(archive_write_set_format_pax_restricted(a), "format"));
  TP_RETURN_IF_ERROR(writer->ArchiveError(archive_write_add_filter_none(a), "filter"));
  TP_RETURN_IF_ERROR(
      writer->ArchiveError(archive_write_set_bytes_per_block(a, kBytesPerBlock), "blocking"));
  // No padding of the last block: the archive ends with tar's end-of-archive
  // zero blocks, not with zeros up to a whole 64 KiB block.
  TP_RETURN_IF_ERROR(writer->ArchiveError(archive_write_set_bytes_in_last_block(a, 1), "blocking"));
  TP_RETURN_IF_ERROR(writer->ArchiveError(
      archive_write_open2(a, writer.get(), nullptr, &TarWriter::WriteCallback, nullptr, nullptr),
      "open"));
  return writer;
}

long TarWriter::WriteCallback(struct archive* archive, void* self, const void* data, size_t size) {
  auto* writer = static_cast<TarWriter*>(self);
  writer->sink_status_ =
      writer->sink_->Write(std::string_view(static_cast<const char*>(data), size));
  if (!writer->sink_status_.ok()) {
    archive_set_error(archive, EIO, "layer sink failed");
    return -1;
  }
  return static_cast<long>(size);
}

absl::Status TarWriter::ArchiveError(int code, std::string_view what) {
  if (code == ARCHIVE_OK || code == ARCHIVE_WARN) return absl::OkStatus();
  if (!sink_status_.ok()) return sink_status_;
  const char* message = archive_error_string(archive_);
  return absl::InternalError(
      fmt::format("libarchive {}: {}", what, message != nullptr ? message : "unknown error"));
}

absl::Status TarWriter::Add(const TarEntry& entry) {
  std::unique_ptr<archive_entry, void (*)(archive_entry*)> e(archive_entry_new(),
                                                             &archive_entry_free);
  std::string name = entry.name;
  switch (entry.type) {
    case TarEntry::Type::kFile:
      archive_entry_set_filetype(e.get(), AE_IFREG);
      archive_entry_set_size(e.get(), entry.size);
      break;
    case TarEntry::Type::kDirectory:
      archive_entry_set_filetype(e.get(), AE_IFDIR);
      name += '/';
      break;
    case TarEntry::Type::kSymlink:
      archive_entry_set_filetype(e.get(), AE_IFLNK);
      archive_entry_set_symlink(e.get(), entry.link_target.c_str());
      break;
    case TarEntry::Type::kHardlink:
      archive_entry_set_filetype(e.get(), AE_IFREG);
      archive_entry_set_hardlink(e.get(), entry.link_target.c_str());
      archive_entry_set_size(e.get(), 0);
      break;
  }
  archive_entry_set_pathname(e.get(), name.c_str());
  archive_entry_set_perm(e.get(), entry.mode & 07777);
  archive_entry_set_uid(e.get(), entry.owner.uid);
  archive_entry_set_gid(e.get(), entry.owner.gid);
  // Whole seconds, as ustar headers hold them: a sub-second part would make
  // the digest depend on the file system's timestamp precision.
  archive_entry_set_mtime(e.get(), entry.mtime, 0);
  TP_RETURN_IF_ERROR(ArchiveError(archive_write_header(archive_, e.get()),
                                  fmt::format("header of {}", entry.name)));
  if (entry.type == TarEntry::Type::kFile && !entry.source.empty()) {
    TP_RETURN_IF_ERROR(CopyContent(entry));
  }
  return ArchiveError(archive_write_finish_entry(archive_), fmt::format("end of {}", entry.name));
}

absl::Status TarWriter::CopyContent(const TarEntry& entry) {
  const std::string& path = entry.source.native();
  // The header already says entry.size bytes, so the file written must be the
  // one planned: a file replaced by a symlink, shrunk or grown since then is
  // refused, never archived with a header that lies about it.
  base::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
  if (fd.get() < 0) return base::ErrnoToStatus(errno, fmt::format("opening {}", path));
  struct stat st;
  if (::fstat(fd.get(), &st) != 0) return base::ErrnoToStatus(errno, fmt::format("stat {}", path));
  if (!S_ISREG(st.st_mode) || st.st_size != entry.size) return Changed(path);
  buffer_.resize(kReadChunk);
  int64_t left = entry.size;
  while (left > 0) {
    const size_t want = static_cast<size_t>(std::min<int64_t>(left, kReadChunk));
    TP_ASSIGN_OR_RETURN(size_t got, ReadSome(fd.get(), buffer_.data(), want, path));
    if (got == 0) return Changed(path);
    la_ssize_t written = archive_write_data(archive_, buffer_.data(), got);
    if (written < 0 || static_cast<size_t>(written) != got) {
      return ArchiveError(ARCHIVE_FATAL, fmt::format("data of {}", entry.name));
    }
    left -= static_cast<int64_t>(got);
  }
  TP_ASSIGN_OR_RETURN(size_t extra, ReadSome(fd.get(), buffer_.data(), 1, path));
  if (extra != 0) return Changed(path);
  return absl::OkStatus();
}

absl::Status TarWriter::Close() {
  return ArchiveError(archive_write_close(archive_), "end of archive");
}

}  // namespace trainpkg::packager::layer_internal
