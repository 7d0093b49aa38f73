#include "packager/layer/internal/parallel_gzip_writer.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "base/status_macros.h"

namespace trainpkg::packager::layer_internal {

ParallelGzipWriter::ParallelGzipWriter(oci::ByteSink* next, Options options)
    : next_(next), options_(options) {
  if (options_.block_size == 0 || options_.threads < 1) {
    std::fprintf(stderr, "ParallelGzipWriter: block_size %zu and threads %d must be positive\n",
                 options_.block_size, options_.threads);
    std::abort();
  }
  for (int i = 0; i < options_.threads; ++i) {
    compressors_.push_back(std::make_unique<GzipMemberCompressor>(options_.level));
  }
  if (options_.threads > 1) pool_ = std::make_unique<ThreadPool>(options_.threads);
  current_.reserve(options_.block_size);
}

ParallelGzipWriter::~ParallelGzipWriter() = default;

absl::Status ParallelGzipWriter::Write(std::string_view data) {
  TP_RETURN_IF_ERROR(status_);
  while (!data.empty()) {
    const size_t take = std::min(options_.block_size - current_.size(), data.size());
    current_.append(data.data(), take);
    data.remove_prefix(take);
    if (current_.size() == options_.block_size) TP_RETURN_IF_ERROR(SubmitCurrent());
  }
  return absl::OkStatus();
}

absl::Status ParallelGzipWriter::Finish() {
  TP_RETURN_IF_ERROR(status_);
  if (!current_.empty() || !emitted_any_) TP_RETURN_IF_ERROR(SubmitCurrent());
  while (!pending_.empty()) {
    bool wrote = false;
    TP_RETURN_IF_ERROR(WriteOldest(/*wait=*/true, &wrote));
  }
  return absl::OkStatus();
}

absl::Status ParallelGzipWriter::SubmitCurrent() {
  emitted_any_ = true;
  if (pool_ == nullptr) {
    compressors_[0]->Compress(current_, &scratch_);
    current_.clear();
    return Emit(scratch_);
  }
  auto block = std::make_shared<Block>();
  block->input.swap(current_);
  current_.reserve(options_.block_size);
  pending_.push_back(Pending{block, block->done.get_future()});
  pool_->Schedule([this, block](int worker) {
    compressors_[static_cast<size_t>(worker)]->Compress(block->input, &block->output);
    block->input = std::string();
    block->done.set_value();
  });
  // Write what is ready; block only when too much is in flight.
  const size_t max_in_flight = 2 * static_cast<size_t>(options_.threads);
  bool wrote = true;
  while (!pending_.empty() && wrote) {
    TP_RETURN_IF_ERROR(WriteOldest(/*wait=*/pending_.size() > max_in_flight, &wrote));
  }
  return absl::OkStatus();
}

absl::Status ParallelGzipWriter::WriteOldest(bool wait, bool* wrote) {
  Pending& oldest = pending_.front();
  if (!wait && oldest.done.wait_for(std::chrono::seconds(0)) != std::future_status::ready) {
    *wrote = false;
    return absl::OkStatus();
  }
  oldest.done.wait();
  std::shared_ptr<Block> block = std::move(oldest.block);
  pending_.pop_front();
  *wrote = true;
  return Emit(block->output);
}

absl::Status ParallelGzipWriter::Emit(const std::string& member) {
  status_ = next_->Write(member);
  return status_;
}

}  // namespace trainpkg::packager::layer_internal
