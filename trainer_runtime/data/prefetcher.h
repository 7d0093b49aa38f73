// Runs a Batcher on a background thread, `buffer_size` batches ahead of the
// consumer (tf.data's prefetch), so reading and copying overlap training.
//
//   Prefetcher prefetch(std::make_unique<Batcher>(std::move(source), options), 2);
//   Batch batch;
//   while (true) {
//     TP_ASSIGN_OR_RETURN(bool got, prefetch.Next(&batch));
//     if (!got) break;
//     ...
//   }
//
// Buffers are recycled: Next swaps the ready batch into *batch and takes the
// caller's previous batch back as a buffer to refill, so after warm-up no
// batch allocates. An error of the Batcher is returned by the Next call that
// reaches it, after the batches produced before it, and by every later call.
// The destructor stops the thread and joins it, also in mid-stream.
// Thread safety: Next is called from one thread at a time.
#ifndef TRAINPKG_TRAINER_RUNTIME_DATA_PREFETCHER_H_
#define TRAINPKG_TRAINER_RUNTIME_DATA_PREFETCHER_H_

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "trainer_runtime/data/batcher.h"

namespace trainpkg::data {

class Prefetcher {
 public:
  // Starts the thread. REQUIRES: batcher != nullptr, buffer_size >= 1.
  Prefetcher(std::unique_ptr<Batcher> batcher, int64_t buffer_size);
  ~Prefetcher();
  Prefetcher(const Prefetcher&) = delete;
  Prefetcher& operator=(const Prefetcher&) = delete;

  // Waits for the next batch: true with it in *batch, false at the end, or
  // the Batcher's error. REQUIRES: batch != nullptr.
  absl::StatusOr<bool> Next(Batch* batch);

 private:
  void Run();

  std::unique_ptr<Batcher> batcher_;
  const int64_t buffer_size_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<Batch> ready_;  // produced, not yet handed out
  std::vector<Batch> free_;  // buffers to refill
  bool finished_ = false;    // the producer is done (end or error)
  bool stopping_ = false;    // the destructor asked the producer to stop
  absl::Status error_;
  std::thread thread_;  // last: starts after every member above exists
};

}  // namespace trainpkg::data

#endif  // TRAINPKG_TRAINER_RUNTIME_DATA_PREFETCHER_H_
