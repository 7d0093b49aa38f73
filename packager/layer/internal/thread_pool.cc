#include "packager/layer/internal/thread_pool.h"

#include <cstdio>
#include <cstdlib>

namespace trainpkg::packager::layer_internal {

ThreadPool::ThreadPool(int threads) {
  if (threads < 1) {
    std::fprintf(stderr, "ThreadPool: threads must be >= 1, got %d\n", threads);
    std::abort();
  }
  workers_.reserve(static_cast<size_t>(threads));
  for (int i = 0; i < threads; ++i) workers_.emplace_back([this, i] { Run(i); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stopping_ = true;
  }
  wake_.notify_all();
  for (std::thread& worker : workers_) worker.join();
}

void ThreadPool::Schedule(std::function<void(int)> task) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    tasks_.push_back(std::move(task));
  }
  wake_.notify_one();
}

void ThreadPool::Run(int worker) {
  for (;;) {
    std::function<void(int)> task;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      wake_.wait(lock, [this] { return stopping_ || !tasks_.empty(); });
      if (tasks_.empty()) return;  // stopping and drained
      task = std::move(tasks_.front());
      tasks_.pop_front();
    }
    task(worker);
  }
}

}  // namespace trainpkg::packager::layer_internal
