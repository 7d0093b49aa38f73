// A ByteSink that zstd-compresses what it is given into one zstd frame
// (libzstd's streaming API with its own worker threads).
//
//   ZstdWriter zstd(&file, {.level = 3, .threads = 2});
//   TP_RETURN_IF_ERROR(zstd.Write(tar_bytes));  ...
//   TP_RETURN_IF_ERROR(zstd.Finish());
//
// libzstd always runs in its multi-threaded mode (at least one worker) with
// a fixed job size, so the input is cut into the same jobs whatever
// `threads` is: the output depends only on the input and `level`
// (layer_writer_test checks 1 vs 4 threads). The frame records no content
// size or dictionary; a checksum is included.
//
// `next` (not owned) must outlive the writer and is only called from the
// thread calling Write/Finish. Not thread-safe: one producer thread.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_ZSTD_WRITER_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_ZSTD_WRITER_H_

#include <string>

#include "registry/oci/byte_sink.h"

struct ZSTD_CCtx_s;

namespace trainpkg::packager::layer_internal {

class ZstdWriter final : public oci::ByteSink {
 public:
  struct Options {
    int level = 3;    // 1..19
    int threads = 2;  // >= 1 worker threads
  };

  // REQUIRES: options within the ranges above (violations abort).
  ZstdWriter(oci::ByteSink* next, Options options);
  ~ZstdWriter() override;
  ZstdWriter(const ZstdWriter&) = delete;
  ZstdWriter& operator=(const ZstdWriter&) = delete;

  // Errors: `next`'s, or Internal for a libzstd failure; after one, every
  // later call returns it. REQUIRES: Finish() not called.
  absl::Status Write(std::string_view data) override;
  // Ends the frame and writes what is left. REQUIRES: called at most once.
  absl::Status Finish();

 private:
  absl::Status Compress(std::string_view data, bool end);

  oci::ByteSink* next_;
  ZSTD_CCtx_s* ctx_;
  std::string out_;
  absl::Status status_;
};

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_ZSTD_WRITER_H_
