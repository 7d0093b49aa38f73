#include "packager/layer/internal/parallel_gzip_writer.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <utility>

#include "base/status_macros.h"

namespace trainpkg::packager::layer_internal {

ParallelGzipWriter::ParallelGzipWriter(oci::ByteSink* next, Options options)
    : next_(next),
      options_(options),
      max_in_flight_(2 * static_cast<size_t>(std::max(options.threads, 1))) {
  if (options_.block_size == 0 || options_.threads < 1) {
    std::fprintf(stderr, "ParallelGzipWriter: block_size %zu and threads %d must be positive\n",
                 options_.block_size, options_.threads);
    std::abort();
  }
  for (int i = 0; i < options_.threads; ++i) {
    compressors_.push_back(std::make_unique<GzipMemberCompressor>(options_.level));
  }
  current_ = std::make_unique<Block>();
  current_->input.reserve(options_.block_size);
  if (options_.threads > 1) {
    pool_ = std::make_unique<ThreadPool>(options_.threads);
    writer_ = std::thread([this] { WriteMembers(); });
  }
}

ParallelGzipWriter::~ParallelGzipWriter() {
  if (writer_.joinable()) {  // no Finish(): drain what is in flight, write nothing more
    std::lock_guard<std::mutex> lock(mutex_);
    if (status_.ok()) status_ = absl::CancelledError("gzip stream abandoned before Finish");
  }
  StopWriter();
}

absl::Status ParallelGzipWriter::Write(std::string_view data) {
  if (failed_.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }
  while (!data.empty()) {
    std::string& input = current_->input;
    const size_t take = std::min(options_.block_size - input.size(), data.size());
    input.append(data.data(), take);
    data.remove_prefix(take);
    if (input.size() == options_.block_size) TP_RETURN_IF_ERROR(SubmitCurrent());
  }
  return absl::OkStatus();
}

absl::Status ParallelGzipWriter::Finish() {
  if (failed_.load(std::memory_order_relaxed)) {
    std::lock_guard<std::mutex> lock(mutex_);
    return status_;
  }
  // Empty input still gets one (empty) member: zero bytes are not a gzip file.
  if (!current_->input.empty() || !submitted_any_) TP_RETURN_IF_ERROR(SubmitCurrent());
  StopWriter();
  std::lock_guard<std::mutex> lock(mutex_);
  return status_;
}

absl::Status ParallelGzipWriter::SubmitCurrent() {
  submitted_any_ = true;
  if (pool_ == nullptr) {
    Block& block = *current_;
    CompressBlock(0, &block);
    block.input.clear();
    absl::Status status = next_->Write(std::string_view(block.output.get(), block.output_size));
    if (!status.ok()) {
      std::lock_guard<std::mutex> lock(mutex_);
      status_ = status;
      failed_ = true;
    }
    return status;
  }
  Block* block = current_.get();
  {
    std::unique_lock<std::mutex> lock(mutex_);
    // At most two blocks per thread in flight: memory stays bounded however
    // fast the tar comes, and each thread has its next block ready.
    changed_.wait(lock, [this] { return in_flight_.size() < max_in_flight_ || !status_.ok(); });
    TP_RETURN_IF_ERROR(status_);
    in_flight_.push_back(std::move(current_));
    current_ = TakeSpareLocked();
  }
  pool_->Schedule([this, block](int worker) {
    CompressBlock(worker, block);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      block->compressed = true;
    }
    changed_.notify_all();
  });
  return absl::OkStatus();
}

std::unique_ptr<ParallelGzipWriter::Block> ParallelGzipWriter::TakeSpareLocked() {
  if (spare_.empty()) {
    auto block = std::make_unique<Block>();
    block->input.reserve(options_.block_size);
    return block;
  }
  std::unique_ptr<Block> block = std::move(spare_.back());
  spare_.pop_back();
  block->input.clear();
  block->compressed = false;
  return block;
}

void ParallelGzipWriter::CompressBlock(int worker, Block* block) {
  GzipMemberCompressor& compressor = *compressors_[static_cast<size_t>(worker)];
  const size_t needed = compressor.MaxMemberSize(block->input.size());
  if (block->output_capacity < needed) {
    block->output.reset(new char[needed]);  // uninitialized: Compress writes what it returns
    block->output_capacity = needed;
  }
  block->output_size = compressor.Compress(block->input, block->output.get(), needed);
}

void ParallelGzipWriter::WriteMembers() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    changed_.wait(lock, [this] {
      return (!in_flight_.empty() && in_flight_.front()->compressed) ||
             (finishing_ && in_flight_.empty());
    });
    // Only the front block is written, so members come out in input order
    // whichever thread finishes first; with block boundaries fixed by
    // block_size alone, the stream is the same for any number of threads.
    if (in_flight_.empty()) return;  // finishing, and everything is written
    Block* block = in_flight_.front().get();
    const bool write = status_.ok();
    lock.unlock();
    // After an error the rest is only drained, so that nothing waits forever.
    absl::Status status =
        write ? next_->Write(std::string_view(block->output.get(), block->output_size))
              : absl::OkStatus();
    lock.lock();
    if (!status.ok()) {
      status_ = status;
      failed_ = true;
    }
    spare_.push_back(std::move(in_flight_.front()));
    in_flight_.pop_front();
    changed_.notify_all();
  }
}

void ParallelGzipWriter::StopWriter() {
  if (!writer_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    finishing_ = true;
  }
  changed_.notify_all();
  writer_.join();
}

}  // namespace trainpkg::packager::layer_internal
