// A ByteSink that gzips what it is given, block by block, on a thread pool.
//
//   ParallelGzipWriter gzip(&file, {.level = 6, .block_size = 1 << 20, .threads = 2});
//   TP_RETURN_IF_ERROR(gzip.Write(tar_bytes));  ...
//   TP_RETURN_IF_ERROR(gzip.Finish());
//
// The input is cut into blocks of exactly `block_size` bytes (the last one
// shorter); each block becomes one gzip member (gzip_member.h) and members
// reach `next` in input order. The output therefore depends only on the input,
// `level` and `block_size`, never on `threads` or timing. At most 2 * threads
// blocks are in flight, so memory stays O(threads * block_size) however long
// the stream.
//
// `next` (not owned) must outlive the writer; it is only ever called from the
// thread calling Write/Finish. Not thread-safe: one producer thread.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_PARALLEL_GZIP_WRITER_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_PARALLEL_GZIP_WRITER_H_

#include <cstddef>
#include <deque>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "packager/layer/internal/gzip_member.h"
#include "packager/layer/internal/thread_pool.h"
#include "registry/oci/byte_sink.h"

namespace trainpkg::packager::layer_internal {

class ParallelGzipWriter final : public oci::ByteSink {
 public:
  struct Options {
    int level = 6;                        // libdeflate level, 0..12
    size_t block_size = size_t{1} << 20;  // > 0
    int threads = 2;                      // >= 1; 1 compresses on the caller's thread
  };

  // REQUIRES: options within the ranges above (violations abort).
  ParallelGzipWriter(oci::ByteSink* next, Options options);
  // Waits for blocks still being compressed; what reached `next` without a
  // successful Finish() is a truncated stream.
  ~ParallelGzipWriter() override;

  // Errors are those of `next`; after one, every later call returns it.
  // REQUIRES: Finish() not called.
  absl::Status Write(std::string_view data) override;
  // Compresses the last partial block and writes every member still pending.
  // An empty input gives one empty member, so the output is always a gzip file.
  // REQUIRES: called at most once.
  absl::Status Finish();

 private:
  struct Block {
    std::string input;
    std::string output;
    std::promise<void> done;
  };
  struct Pending {
    std::shared_ptr<Block> block;
    std::future<void> done;
  };

  absl::Status SubmitCurrent();
  // Writes the oldest pending member, waiting for it when `wait`; returns
  // false in `*wrote` when it was not ready yet.
  absl::Status WriteOldest(bool wait, bool* wrote);
  absl::Status Emit(const std::string& member);

  oci::ByteSink* next_;
  Options options_;
  std::string current_;
  std::string scratch_;  // the single-threaded path's output buffer
  bool emitted_any_ = false;
  absl::Status status_;
  std::deque<Pending> pending_;
  std::vector<std::unique_ptr<GzipMemberCompressor>> compressors_;
  std::unique_ptr<ThreadPool> pool_;  // declared last: joined before compressors_ go
};

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_PARALLEL_GZIP_WRITER_H_
