// A one-step allreduce for small buffers over Gloo's TCP pairs: every rank
// sends its whole buffer to every other rank, then sums all of them in rank
// order. One message latency per run, where halving-doubling needs
// 2·log2(p) message exchanges plus its buffer-reuse notifications; the price
// is (p-1)× the buffer on the wire per rank, so it is for buffers where
// latency, not bandwidth, is the cost (GlooCommunicator::PrepareAllReduce
// picks it when (p-1)·bytes is below 256 KiB, which at 2 ranks is also
// exactly halving-doubling's traffic).
//
// Built once for one buffer, on buffers registered with Gloo's pairs (bound
// buffers: a message lands directly in the peer's receive buffer, no
// per-message handshake). The receive buffers alternate between two sets by
// run parity, so no acknowledgement is needed before reusing them: a rank
// sends run t+1 only after receiving every peer's run t, which each peer sent
// after it finished reading its run t-1 buffers, the ones run t+1 fills.
//
// Every rank computes ((x_0 + x_1) + x_2) + ... in the same order, so the
// result is bit-identical on every rank. Gloo reports failures (a broken
// pair, a timeout) by throwing, like its own algorithms. Every rank must
// construct it in the same order as its other slot-using algorithms
// (halving-doubling) and run it in the same order as its other operations.
#ifndef TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_GLOO_EXCHANGE_ALLREDUCE_H_
#define TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_GLOO_EXCHANGE_ALLREDUCE_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <vector>

#include "gloo/context.h"
#include "gloo/transport/buffer.h"

namespace trainpkg::collectives::internal {

class GlooExchangeAllReduce {
 public:
  // `data` and `context` (connected) must outlive it. Sends nothing.
  GlooExchangeAllReduce(const std::shared_ptr<gloo::Context>& context, std::span<float> data);

  // data <- the sum over ranks of their data.
  void Run();

 private:
  std::shared_ptr<gloo::Context> context_;
  std::span<float> data_;
  // By parity, then by peer (ranks other than ours, in rank order).
  std::vector<std::unique_ptr<gloo::transport::Buffer>> send_[2];
  std::vector<std::unique_ptr<gloo::transport::Buffer>> recv_[2];
  // By parity: the peers' buffers, data_.size() floats each, in peer order.
  std::vector<float> received_[2];
  uint64_t runs_ = 0;
};

}  // namespace trainpkg::collectives::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_COLLECTIVES_INTERNAL_GLOO_EXCHANGE_ALLREDUCE_H_
