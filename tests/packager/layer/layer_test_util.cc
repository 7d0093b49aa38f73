#include "tests/packager/layer/layer_test_util.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <zlib.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "registry/oci/digest_builder.h"

namespace trainpkg::packager::testing {

namespace fs = std::filesystem;

void WriteFile(const fs::path& path, std::string_view content, uint32_t mode, int64_t mtime) {
  fs::create_directories(path.parent_path());
  {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(content.data(), static_cast<std::streamsize>(content.size()));
  }
  fs::permissions(path, static_cast<fs::perms>(mode));
  SetMtime(path, mtime);
}

void SetMtime(const fs::path& path, int64_t mtime) {
  struct timespec times[2] = {{mtime, 0}, {mtime, 0}};
  if (::utimensat(AT_FDCWD, path.c_str(), times, AT_SYMLINK_NOFOLLOW) != 0) std::abort();
}

std::string Gunzip(std::string_view gz) {
  z_stream z{};
  if (inflateInit2(&z, 16 + MAX_WBITS) != Z_OK) std::abort();
  z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(gz.data()));
  z.avail_in = static_cast<uInt>(gz.size());
  std::string out;
  char buf[1 << 16];
  for (;;) {
    z.next_out = reinterpret_cast<Bytef*>(buf);
    z.avail_out = sizeof(buf);
    const int rc = inflate(&z, Z_NO_FLUSH);
    out.append(buf, sizeof(buf) - z.avail_out);
    if (rc == Z_STREAM_END) {
      if (z.avail_in == 0) break;
      inflateReset(&z);  // the next member
    } else if (rc != Z_OK) {
      std::abort();
    }
  }
  inflateEnd(&z);
  return out;
}

std::vector<ReadEntry> ReadTar(std::string_view bytes) {
  struct archive* a = archive_read_new();
  archive_read_support_filter_all(a);
  archive_read_support_format_tar(a);
  if (archive_read_open_memory(a, bytes.data(), bytes.size()) != ARCHIVE_OK) std::abort();
  std::vector<ReadEntry> entries;
  struct archive_entry* e;
  while (archive_read_next_header(a, &e) == ARCHIVE_OK) {
    ReadEntry r;
    r.name = archive_entry_pathname(e);
    r.mode = archive_entry_perm(e);
    r.uid = archive_entry_uid(e);
    r.gid = archive_entry_gid(e);
    r.uname = archive_entry_uname(e) != nullptr ? archive_entry_uname(e) : "";
    r.gname = archive_entry_gname(e) != nullptr ? archive_entry_gname(e) : "";
    r.mtime = archive_entry_mtime(e);
    r.has_atime = archive_entry_atime_is_set(e);
    r.has_ctime = archive_entry_ctime_is_set(e);
    if (archive_entry_hardlink(e) != nullptr) {
      r.type = 'h';
      r.link = archive_entry_hardlink(e);
    } else if (archive_entry_filetype(e) == AE_IFDIR) {
      r.type = 'd';
    } else if (archive_entry_filetype(e) == AE_IFLNK) {
      r.type = 'l';
      r.link = archive_entry_symlink(e);
    } else {
      r.type = 'f';
    }
    char buf[65536];
    la_ssize_t n;
    while ((n = archive_read_data(a, buf, sizeof(buf))) > 0) {
      r.content.append(buf, static_cast<size_t>(n));
    }
    entries.push_back(std::move(r));
  }
  archive_read_free(a);
  return entries;
}

std::string RunShell(const std::string& command, int* exit_code) {
  FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) std::abort();
  std::string out;
  char buf[65536];
  size_t n;
  while ((n = std::fread(buf, 1, sizeof(buf), pipe)) > 0) out.append(buf, n);
  const int status = ::pclose(pipe);
  *exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return out;
}

std::string Sha256(std::string_view bytes) { return oci::Sha256Digest(bytes).ToString(); }

}  // namespace trainpkg::packager::testing
