// A fixed set of worker threads running tasks in FIFO order.
//
//   ThreadPool pool(2);
//   pool.Schedule([](int worker) { ... });   // worker: 0 .. size()-1
//
// Each task receives the index of the worker running it, so callers can keep
// per-worker state (a compressor) without locks. Schedule is thread-safe. The
// destructor runs every task already scheduled, then joins the workers.
#ifndef TRAINPKG_PACKAGER_LAYER_INTERNAL_THREAD_POOL_H_
#define TRAINPKG_PACKAGER_LAYER_INTERNAL_THREAD_POOL_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

namespace trainpkg::packager::layer_internal {

class ThreadPool {
 public:
  // REQUIRES: threads >= 1.
  explicit ThreadPool(int threads);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  int size() const { return static_cast<int>(workers_.size()); }
  void Schedule(std::function<void(int worker)> task);

 private:
  void Run(int worker);

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::function<void(int)>> tasks_;
  bool stopping_ = false;
  std::vector<std::thread> workers_;
};

}  // namespace trainpkg::packager::layer_internal

#endif  // TRAINPKG_PACKAGER_LAYER_INTERNAL_THREAD_POOL_H_
