// Helpers for the layer tests: temporary trees, in-memory sinks, reading a
// layer back with libarchive, and running shell pipelines.
#ifndef TRAINPKG_TESTS_PACKAGER_LAYER_LAYER_TEST_UTIL_H_
#define TRAINPKG_TESTS_PACKAGER_LAYER_LAYER_TEST_UTIL_H_

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "registry/oci/byte_sink.h"
#include "tests/test_util/file.h"

namespace trainpkg::packager::testing {

using ::trainpkg::testing::TempDir;

// A fresh directory under the system temp dir, removed with its contents.
// Creates parent directories; sets the permission bits and mtime (seconds).
void WriteFile(const std::filesystem::path& path, std::string_view content, uint32_t mode = 0644,
               int64_t mtime = 1'600'000'000);
// Sets the mtime of `path` itself (not a symlink's target).
void SetMtime(const std::filesystem::path& path, int64_t mtime);

class StringSink final : public oci::ByteSink {
 public:
  absl::Status Write(std::string_view data) override {
    bytes.append(data.data(), data.size());
    return absl::OkStatus();
  }
  std::string bytes;
};

// Decompresses every member of a (multi-member) gzip stream with zlib, an
// independent reader; aborts the test binary on corrupt input.
std::string Gunzip(std::string_view gz);

// One tar entry as libarchive reads it.
struct ReadEntry {
  std::string name;
  char type = 0;  // 'f' file, 'd' dir, 'l' symlink, 'h' hardlink
  uint32_t mode = 0;
  int64_t uid = -1, gid = -1;
  std::string uname, gname;
  int64_t mtime = 0;
  bool has_atime = false, has_ctime = false;
  std::string link;  // symlink or hardlink target
  std::string content;
};
// Reads a (gzipped or plain) tar with libarchive.
std::vector<ReadEntry> ReadTar(std::string_view bytes);

// Runs `command` with /bin/sh; returns stdout and stores the exit code.
std::string RunShell(const std::string& command, int* exit_code);

// sha256 of `bytes` as "sha256:<hex>".
std::string Sha256(std::string_view bytes);

}  // namespace trainpkg::packager::testing

#endif  // TRAINPKG_TESTS_PACKAGER_LAYER_LAYER_TEST_UTIL_H_
