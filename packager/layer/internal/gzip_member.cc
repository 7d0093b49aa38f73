#include "packager/layer/internal/gzip_member.h"

#include <libdeflate.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace trainpkg::packager::layer_internal {
namespace {

constexpr size_t kHeaderSize = 10;
constexpr size_t kTrailerSize = 8;
constexpr unsigned char kOsUnknown = 255;

// Blocks whose every 64 KiB slice has an order-0 entropy of at least this many
// bits per byte (random data, compressed files) are stored rather than
// searched for matches: deflate would store them anyway, 3-4x slower.
constexpr size_t kProbeSlice = 64 * 1024;
constexpr double kIncompressibleBits = 7.98;

bool LooksIncompressible(std::string_view block) {
  if (block.size() < kProbeSlice) return false;
  for (size_t off = 0; off < block.size(); off += kProbeSlice) {
    std::string_view slice = block.substr(off, kProbeSlice);
    // Four interleaved tables: a run of one byte value would otherwise make
    // every increment wait for the previous one.
    std::array<std::array<uint32_t, 256>, 4> tables{};
    const auto* bytes = reinterpret_cast<const unsigned char*>(slice.data());
    size_t i = 0;
    for (; i + 4 <= slice.size(); i += 4) {
      ++tables[0][bytes[i]];
      ++tables[1][bytes[i + 1]];
      ++tables[2][bytes[i + 2]];
      ++tables[3][bytes[i + 3]];
    }
    for (; i < slice.size(); ++i) ++tables[0][bytes[i]];
    std::array<uint32_t, 256> counts;
    for (size_t v = 0; v < 256; ++v) {
      counts[v] = tables[0][v] + tables[1][v] + tables[2][v] + tables[3][v];
    }
    double bits = 0;
    const double n = static_cast<double>(slice.size());
    for (uint32_t count : counts) {
      if (count != 0) bits -= count / n * std::log2(count / n);
    }
    if (bits < kIncompressibleBits) return false;
  }
  return true;
}

libdeflate_compressor* AllocCompressor(int level) {
  libdeflate_compressor* compressor = libdeflate_alloc_compressor(level);
  if (compressor == nullptr) {
    std::fprintf(stderr, "GzipMemberCompressor: libdeflate_alloc_compressor failed\n");
    std::abort();
  }
  return compressor;
}

void PutLe32(uint32_t value, char* out) {
  for (int i = 0; i < 4; ++i) out[i] = static_cast<char>((value >> (8 * i)) & 0xff);
}

}  // namespace

std::string GzipMemberHeader(int level) {
  unsigned char xfl = 0;
  if (level <= 1) {
    xfl = 4;  // fastest
  } else if (level >= 9) {
    xfl = 2;  // maximum compression
  }
  // A fixed header: MTIME 0 ("no time stamp" in RFC 1952), no file name, OS
  // "unknown", so the same tar compresses to the same bytes on any machine
  // and at any time. Each block is a whole gzip member; RFC 1952 allows a
  // file of several members and gzip readers read them all.
  const unsigned char header[kHeaderSize] = {0x1f, 0x8b, 8, 0, 0, 0, 0, 0, xfl, kOsUnknown};
  return std::string(reinterpret_cast<const char*>(header), kHeaderSize);
}

GzipMemberCompressor::GzipMemberCompressor(int level) : level_(level), compressor_(nullptr) {
  if (level < 0 || level > 12) {
    std::fprintf(stderr, "GzipMemberCompressor: level %d outside 0..12\n", level);
    std::abort();
  }
  compressor_ = AllocCompressor(level);
  store_ = AllocCompressor(0);
}

GzipMemberCompressor::~GzipMemberCompressor() {
  libdeflate_free_compressor(compressor_);
  libdeflate_free_compressor(store_);
}

size_t GzipMemberCompressor::MaxMemberSize(size_t block_size) const {
  // Either compressor may take the block (see Compress).
  const size_t bound = std::max(libdeflate_deflate_compress_bound(compressor_, block_size),
                                libdeflate_deflate_compress_bound(store_, block_size));
  return kHeaderSize + bound + kTrailerSize;
}

size_t GzipMemberCompressor::Compress(std::string_view block, char* out, size_t capacity) {
  libdeflate_compressor* compressor =
      level_ > 0 && LooksIncompressible(block) ? store_ : compressor_;
  const size_t bound = libdeflate_deflate_compress_bound(compressor, block.size());
  if (capacity < kHeaderSize + bound + kTrailerSize) {
    std::fprintf(stderr, "GzipMemberCompressor: output buffer of %zu bytes below the bound %zu\n",
                 capacity, kHeaderSize + bound + kTrailerSize);
    std::abort();
  }
  const std::string header = GzipMemberHeader(level_);
  header.copy(out, kHeaderSize);
  const size_t deflated = libdeflate_deflate_compress(compressor, block.data(), block.size(),
                                                      out + kHeaderSize, bound);
  if (deflated == 0) {  // cannot happen with a buffer of the bound's size
    std::fprintf(stderr, "GzipMemberCompressor: deflate output exceeded its bound\n");
    std::abort();
  }
  char* trailer = out + kHeaderSize + deflated;
  PutLe32(libdeflate_crc32(0, block.data(), block.size()), trailer);
  // ISIZE is the input size modulo 2^32 (RFC 1952).
  PutLe32(static_cast<uint32_t>(block.size() & 0xffffffffu), trailer + 4);
  return kHeaderSize + deflated + kTrailerSize;
}

void GzipMemberCompressor::Compress(std::string_view block, std::string* out) {
  out->resize(MaxMemberSize(block.size()));
  out->resize(Compress(block, out->data(), out->size()));
}

}  // namespace trainpkg::packager::layer_internal
