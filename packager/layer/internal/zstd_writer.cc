#include "packager/layer/internal/zstd_writer.h"

#include <zstd.h>

#include <cstdio>
#include <cstdlib>

#include "fmt/format.h"

namespace trainpkg::packager::layer_internal {
namespace {

// Fixed so the frame does not depend on the number of workers (libzstd's
// default job size depends on the level only, but say it explicitly).
constexpr int kJobSize = 4 << 20;

void Set(ZSTD_CCtx* ctx, ZSTD_cParameter parameter, int value) {
  size_t rc = ZSTD_CCtx_setParameter(ctx, parameter, value);
  if (ZSTD_isError(rc)) {
    std::fprintf(stderr, "ZstdWriter: setting zstd parameter %d to %d: %s\n",
                 static_cast<int>(parameter), value, ZSTD_getErrorName(rc));
    std::abort();
  }
}

}  // namespace

ZstdWriter::ZstdWriter(oci::ByteSink* next, Options options)
    : next_(next), ctx_(ZSTD_createCCtx()), out_(ZSTD_CStreamOutSize(), '\0') {
  if (ctx_ == nullptr || options.level < 1 || options.level > 19 || options.threads < 1) {
    std::fprintf(stderr, "ZstdWriter: bad options (level %d, threads %d) or out of memory\n",
                 options.level, options.threads);
    std::abort();
  }
  Set(ctx_, ZSTD_c_compressionLevel, options.level);
  // A content checksum in the frame, so a reader detects a damaged layer.
  Set(ctx_, ZSTD_c_checksumFlag, 1);
  // The size is unknown while streaming; leaving it out always keeps the
  // frame header the same however the input was fed.
  Set(ctx_, ZSTD_c_contentSizeFlag, 0);
  Set(ctx_, ZSTD_c_nbWorkers, options.threads);
  Set(ctx_, ZSTD_c_jobSize, kJobSize);
}

ZstdWriter::~ZstdWriter() { ZSTD_freeCCtx(ctx_); }

absl::Status ZstdWriter::Compress(std::string_view data, bool end) {
  if (!status_.ok()) return status_;
  ZSTD_inBuffer in{data.data(), data.size(), 0};
  for (;;) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    size_t remaining = ZSTD_compressStream2(ctx_, &out, &in, end ? ZSTD_e_end : ZSTD_e_continue);
    if (ZSTD_isError(remaining)) {
      status_ = absl::InternalError(fmt::format("zstd: {}", ZSTD_getErrorName(remaining)));
      return status_;
    }
    if (out.pos > 0) {
      status_ = next_->Write(std::string_view(out_.data(), out.pos));
      if (!status_.ok()) return status_;
    }
    if (end ? remaining == 0 : in.pos == in.size) return absl::OkStatus();
  }
}

absl::Status ZstdWriter::Write(std::string_view data) { return Compress(data, false); }

absl::Status ZstdWriter::Finish() { return Compress({}, true); }

}  // namespace trainpkg::packager::layer_internal
