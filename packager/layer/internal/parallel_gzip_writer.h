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
// blocks are in flight (being compressed or waiting to be written), so memory
// stays O(threads * block_size) however long the stream; their buffers are
// reused, not reallocated.
//
// With threads > 1, members reach `next` on a writer thread of their own, so
// the producer (reading and hashing the tar) and `next` (hashing and writing
// the members) run at the same time: on incompressible input, where the
// compressors have little to do, those two are the work. `next` (not owned)
// must outlive the writer; its calls never overlap, and they are over when
// Finish() returns. With threads == 1 everything runs on the caller's thread.
// Not thread-safe: one producer thread.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_PARALLEL_GZIP_WRITER_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_PARALLEL_GZIP_WRITER_H_

#include <atomic>
#include <condition_variable>
#include <cstddef>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
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
  // Waits for blocks still being compressed or written; what reached `next`
  // without a successful Finish() is a truncated stream.
  ~ParallelGzipWriter() override;

  // Errors are those of `next`; after one, every later call returns it.
  // REQUIRES: Finish() not called.
  absl::Status Write(std::string_view data) override;
  // Compresses the last partial block and writes every member still pending;
  // returns after the last call to `next`.
  // An empty input gives one empty member, so the output is always a gzip file.
  // REQUIRES: called at most once.
  absl::Status Finish();

 private:
  struct Block {
    std::string input;
    // The member; a plain buffer so that reusing it costs no zero-fill.
    std::unique_ptr<char[]> output;
    size_t output_capacity = 0;
    size_t output_size = 0;
    bool compressed = false;  // guarded by mutex_
  };
  // Compresses `block` with the worker's compressor into its output buffer.
  void CompressBlock(int worker, Block* block);

  absl::Status SubmitCurrent();
  // The writer thread: hands compressed blocks to `next_` in input order.
  void WriteMembers();
  // Stops the writer thread once every submitted block is written.
  void StopWriter();
  // REQUIRES: mutex_ held.
  std::unique_ptr<Block> TakeSpareLocked();

  oci::ByteSink* next_;
  Options options_;
  size_t max_in_flight_;
  std::unique_ptr<Block> current_;  // being filled by Write
  bool submitted_any_ = false;
  std::atomic<bool> failed_{false};

  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::unique_ptr<Block>> in_flight_;  // input order
  std::vector<std::unique_ptr<Block>> spare_;     // written, buffers kept
  bool finishing_ = false;
  absl::Status status_;  // the first error of next_

  std::vector<std::unique_ptr<GzipMemberCompressor>> compressors_;
  std::thread writer_;
  std::unique_ptr<ThreadPool> pool_;  // declared last: joined first, before the writer stops
};

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_PARALLEL_GZIP_WRITER_H_
