#include "trainer_runtime/data/prefetcher.h"

#include <cstdio>
#include <cstdlib>
#include <utility>

namespace trainpkg::data {

Prefetcher::Prefetcher(std::unique_ptr<Batcher> batcher, int64_t buffer_size)
    : batcher_(std::move(batcher)), buffer_size_(buffer_size) {
  if (batcher_ == nullptr || buffer_size_ < 1) {
    std::fputs("Prefetcher: need a batcher and buffer_size >= 1\n", stderr);
    std::abort();
  }
  thread_ = std::thread([this] { Run(); });
}

Prefetcher::~Prefetcher() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

void Prefetcher::Run() {
  while (true) {
    Batch buffer;
    {
      std::unique_lock<std::mutex> lock(mu_);
      changed_.wait(
          lock, [this] { return stopping_ || static_cast<int64_t>(ready_.size()) < buffer_size_; });
      if (stopping_) return;
      if (!free_.empty()) {
        buffer = std::move(free_.back());
        free_.pop_back();
      }
    }
    absl::StatusOr<bool> got = batcher_->Next(&buffer);
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (got.ok() && *got) {
        ready_.push_back(std::move(buffer));
      } else {
        if (!got.ok()) error_ = got.status();
        finished_ = true;
      }
    }
    changed_.notify_all();
    if (!got.ok() || !*got) return;
  }
}

absl::StatusOr<bool> Prefetcher::Next(Batch* batch) {
  std::unique_lock<std::mutex> lock(mu_);
  changed_.wait(lock, [this] { return !ready_.empty() || finished_; });
  if (ready_.empty()) {
    if (!error_.ok()) return error_;
    return false;
  }
  std::swap(*batch, ready_.front());
  free_.push_back(std::move(ready_.front()));  // the caller's previous buffer
  ready_.pop_front();
  lock.unlock();
  changed_.notify_all();
  return true;
}

}  // namespace trainpkg::data
