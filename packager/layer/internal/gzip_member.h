// One complete gzip member (RFC 1952) of a block of bytes, compressed with
// libdeflate. Concatenating the members of consecutive blocks gives a valid
// multi-member gzip file (RFC 1952 §2.2) whose decompression is the
// concatenation of the blocks.
//
// The 10-byte header is fixed so equal input gives equal bytes on every host:
// ID1 ID2, CM=8 (deflate), FLG=0 (no name, comment or extra), MTIME=0,
// XFL=4 for levels 0-1, 2 for levels >= 9, else 0 (what zlib writes), OS=255
// (unknown, what Go's compress/gzip writes).
//
// A block of at least 64 KiB whose every 64 KiB slice has a byte entropy of
// 7.98 bits or more (random data, already-compressed files) is written as
// stored deflate blocks without a match search: deflate would barely shrink
// it, at a quarter of the speed. The choice depends only on the block's bytes,
// so output stays deterministic.
//
// A GzipMemberCompressor owns a libdeflate compressor: not thread-safe, use
// one per thread.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_GZIP_MEMBER_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_GZIP_MEMBER_H_

#include <cstddef>
#include <memory>
#include <string>
#include <string_view>

struct libdeflate_compressor;

namespace trainpkg::packager::layer_internal {

class GzipMemberCompressor {
 public:
  // REQUIRES: 0 <= level <= 12 (libdeflate's range). Allocation failure aborts.
  explicit GzipMemberCompressor(int level);
  ~GzipMemberCompressor();
  GzipMemberCompressor(const GzipMemberCompressor&) = delete;
  GzipMemberCompressor& operator=(const GzipMemberCompressor&) = delete;

  // Replaces `out` with the gzip member of `block` (an empty `block` gives a
  // member that decompresses to nothing).
  void Compress(std::string_view block, std::string* out);

  // The same into `out`, which has room for `capacity` bytes (at least
  // MaxMemberSize(block.size()); less aborts); returns the member's size.
  // For callers that reuse one buffer without zero-filling it every time.
  size_t Compress(std::string_view block, char* out, size_t capacity);
  size_t MaxMemberSize(size_t block_size) const;

 private:
  int level_;
  libdeflate_compressor* compressor_;
  libdeflate_compressor* store_;  // level 0, for blocks that look incompressible
};

// The fixed 10-byte header GzipMemberCompressor writes at `level`.
std::string GzipMemberHeader(int level);

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_GZIP_MEMBER_H_
