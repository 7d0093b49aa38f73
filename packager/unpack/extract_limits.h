// Caps on what extracting an archive may write: how many entries and how
// many uncompressed bytes. Image layers (UnpackLayers) and the builder's ADD
// of local archives count against them, so a small compressed archive (a
// decompression bomb) cannot fill a disk or exhaust inodes.
//
//   TP_ASSIGN_OR_RETURN(ExtractBudget budget, ExtractBudget::ForTarget({}, rootfs));
//   TP_RETURN_IF_ERROR(budget.AddEntry(archive_entry_size(entry)));
//   TP_RETURN_IF_ERROR(budget.AddStreamBytes(n));  // decompressed bytes read
//
// Not thread-safe; one budget per extraction.
#ifndef TRAINPKG_PACKAGER_UNPACK_EXTRACT_LIMITS_H_
#define TRAINPKG_PACKAGER_UNPACK_EXTRACT_LIMITS_H_

#include <cstdint>
#include <filesystem>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace trainpkg::packager::unpack {

inline constexpr int64_t kDefaultMaxExtractEntries = 1'000'000;
// No extraction writes more than this, whatever the free space.
inline constexpr int64_t kHardMaxExtractBytes = int64_t{256} << 30;
// Extraction leaves this much of the target filesystem free (or 5% of its
// size, when that is less).
inline constexpr int64_t kFreeSpaceReserve = int64_t{1} << 30;

struct ExtractLimits {
  int64_t max_entries = kDefaultMaxExtractEntries;  // > 0
  // 0: kHardMaxExtractBytes. Either way never more than the target
  // filesystem's free space less its reserve.
  int64_t max_bytes = 0;
};

// The byte cap for `requested` (ExtractLimits::max_bytes) on a filesystem
// of `fs_size` bytes of which `fs_available` are free to us.
int64_t EffectiveMaxBytes(int64_t requested, int64_t fs_size, int64_t fs_available);

class ExtractBudget {
 public:
  // Resolves `limits` for writing under the existing directory `target`
  // (statvfs). InvalidArgument for a non-positive max_entries or a negative
  // max_bytes; errno-derived errors naming `target`.
  static absl::StatusOr<ExtractBudget> ForTarget(const ExtractLimits& limits,
                                                 const std::filesystem::path& target);

  // One more entry whose header declares `declared_bytes` of content.
  // ResourceExhausted naming the cap when the entries or the declared bytes
  // pass it.
  absl::Status AddEntry(int64_t declared_bytes);
  // `n` more bytes of the decompressed archive stream (headers and padding
  // included). ResourceExhausted naming the cap when they pass it.
  absl::Status AddStreamBytes(int64_t n);

  int64_t max_entries() const { return max_entries_; }
  int64_t max_bytes() const { return max_bytes_; }

 private:
  ExtractBudget(int64_t max_entries, int64_t max_bytes, std::string bytes_reason)
      : max_entries_(max_entries), max_bytes_(max_bytes), bytes_reason_(std::move(bytes_reason)) {}
  absl::Status BytesExceeded() const;

  int64_t max_entries_;
  int64_t max_bytes_;
  std::string bytes_reason_;  // where max_bytes_ comes from, for errors
  int64_t entries_ = 0;
  int64_t declared_bytes_ = 0;
  int64_t stream_bytes_ = 0;
};

}  // namespace trainpkg::packager::unpack

#endif  // TRAINPKG_PACKAGER_UNPACK_EXTRACT_LIMITS_H_
