// Fuzz target: any bytes as a local file that Dockerfile ADD may unpack:
// IsTarArchive decides as Docker does, then ArchiveReader walks every
// member (plain, gzip, bzip2, xz or zstd tar) and copies each file's data
// to /dev/null. Must never crash, hang or trip a sanitizer; errors are fine.
#include <fcntl.h>
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "base/check.h"
#include "packager/layer/internal/archive_reader.h"
#include "packager/layer/tar_archive.h"
#include "packager/unpack/extract_limits.h"
#include "tests/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  using packager::layer_internal::ArchiveMember;
  using packager::layer_internal::ArchiveReader;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  base::TempDir dir = fuzz::ScratchDir();
  const auto path = dir.path() / "archive";
  fuzz::WriteScratchFile(path, bytes);
  (void)packager::IsTarArchive(path);
  // Small caps keep each run bounded; the real ADD's are the defaults.
  absl::StatusOr<packager::unpack::ExtractBudget> budget = packager::unpack::ExtractBudget::ForTarget(
      {.max_entries = 10000, .max_bytes = int64_t{64} << 20}, dir.path());
  TP_CHECK(budget.ok(), "extract budget: {}", budget.status().ToString());
  absl::StatusOr<std::unique_ptr<ArchiveReader>> reader = ArchiveReader::Open(path, &*budget);
  if (!reader.ok()) return 0;
  const int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
  TP_CHECK(null_fd >= 0, "open /dev/null");
  ArchiveMember member;
  while (true) {
    absl::StatusOr<bool> more = (*reader)->Next(&member);
    if (!more.ok() || !*more) break;
    if (member.type == ArchiveMember::Type::kFile && !(*reader)->CopyData(null_fd).ok()) break;
  }
  ::close(null_fd);
  return 0;
}
