#include "trainer_runtime/collectives/internal/gloo_exchange_allreduce.h"

#include <algorithm>

namespace trainpkg::collectives::internal {

GlooExchangeAllReduce::GlooExchangeAllReduce(const std::shared_ptr<gloo::Context>& context,
                                             std::span<float> data)
    : context_(context), data_(data) {
  const int p = context_->size;
  const int me = context_->rank;
  if (p == 1 || data_.empty()) return;
  // Two slots (one per parity) for every unordered pair of ranks, numbered
  // the same way on both sides.
  const int base = context_->nextSlot(2 * p * p);
  const size_t bytes = data_.size_bytes();
  // Runs alternate between the two: a peer that finished run k may already
  // send run k+1 while this rank still sums what it received in run k. It
  // cannot get two runs ahead, since run k+1 needs this rank's own send.
  for (int parity = 0; parity < 2; ++parity) {
    received_[parity].resize(data_.size() * static_cast<size_t>(p - 1));
    size_t peer_index = 0;
    for (int peer = 0; peer < p; ++peer) {
      if (peer == me) continue;
      const int slot = base + 2 * (std::min(me, peer) * p + std::max(me, peer)) + parity;
      std::unique_ptr<gloo::transport::Pair>& pair = context_->getPair(peer);
      send_[parity].push_back(pair->createSendBuffer(slot, data_.data(), bytes));
      recv_[parity].push_back(pair->createRecvBuffer(
          slot, received_[parity].data() + peer_index * data_.size(), bytes));
      ++peer_index;
    }
  }
}

void GlooExchangeAllReduce::Run() {
  const int p = context_->size;
  if (p == 1 || data_.empty()) return;
  const int parity = static_cast<int>(runs_++ & 1);
  for (auto& send : send_[parity]) send->send();
  for (auto& recv : recv_[parity]) recv->waitRecv();
  // Our buffer is still being sent until then; the sum overwrites it.
  for (auto& send : send_[parity]) send->waitSend();
  // x_0 + x_1 + ... in rank order, ours at our rank.
  const int me = context_->rank;
  const size_t n = data_.size();
  std::vector<const float*> by_rank(static_cast<size_t>(p));
  for (int r = 0, peer_index = 0; r < p; ++r) {
    by_rank[static_cast<size_t>(r)] =
        r == me ? data_.data() : received_[parity].data() + n * static_cast<size_t>(peer_index++);
  }
  float* out = data_.data();
  if (p == 2) {
    // Addition commutes exactly: x_0 + x_1 in place on both ranks.
    const float* other = received_[parity].data();
    for (size_t i = 0; i < n; ++i) out[i] += other[i];
    return;
  }
  // `out` is also this rank's source; element i is read before it is written.
  for (size_t i = 0; i < n; ++i) {
    float sum = by_rank[0][i];
    for (int r = 1; r < p; ++r) sum += by_rank[static_cast<size_t>(r)][i];
    out[i] = sum;
  }
}

}  // namespace trainpkg::collectives::internal
