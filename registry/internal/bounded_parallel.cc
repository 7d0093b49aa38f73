#include "registry/internal/bounded_parallel.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <thread>
#include <vector>

namespace trainpkg::registry::internal {

absl::Status RunBounded(size_t count, int jobs, const std::function<absl::Status(size_t)>& task) {
  if (jobs < 1) std::abort();
  std::vector<absl::Status> results(count);
  std::atomic<size_t> next{0};
  std::atomic<bool> failed{false};
  auto worker = [&] {
    while (!failed.load()) {
      size_t i = next.fetch_add(1);
      if (i >= count) return;
      results[i] = task(i);
      if (!results[i].ok()) failed.store(true);
    }
  };
  size_t threads = std::min<size_t>(static_cast<size_t>(jobs), count);
  std::vector<std::thread> pool;
  for (size_t t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (std::thread& thread : pool) thread.join();
  for (const absl::Status& result : results) {
    if (!result.ok()) return result;
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::registry::internal
