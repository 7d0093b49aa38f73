#include "trainer_runtime/ps/internal/chunks.h"

#include <algorithm>
#include <bit>
#include <cstring>

namespace trainpkg::ps::internal {

static_assert(sizeof(float) == 4 && std::endian::native == std::endian::little,
              "chunks carry float32 little-endian in host order");

bool ForEachChunk(int shard, int slot, int64_t iterations, std::span<const float> values,
                  int64_t chunk_bytes, const std::function<bool(const proto::TensorChunk&)>& send) {
  const int64_t per_chunk = std::max<int64_t>(1, chunk_bytes / 4);
  const int64_t n = static_cast<int64_t>(values.size());
  proto::TensorChunk chunk;
  chunk.set_shard(shard);
  chunk.set_slot(slot);
  chunk.set_iterations(iterations);
  int64_t offset = 0;
  // do-while: an empty tensor still sends one empty chunk, so the receiver
  // learns its shard, slot and iteration count.
  do {
    const int64_t count = std::min(per_chunk, n - offset);
    chunk.set_offset(offset);
    chunk.set_values(reinterpret_cast<const char*>(values.data() + offset),
                     static_cast<size_t>(count) * 4);
    if (!send(chunk)) return false;
    offset += count;
  } while (offset < n);
  return true;
}

std::vector<float> ChunkValues(const proto::TensorChunk& chunk, bool* ok) {
  const std::string& bytes = chunk.values();
  *ok = bytes.size() % 4 == 0;
  if (!*ok) return {};
  std::vector<float> out(bytes.size() / 4);
  // The chunk of an empty variable is empty, and an empty vector's data()
  // may be null, which memcpy must not get even for 0 bytes.
  if (!out.empty()) std::memcpy(out.data(), bytes.data(), bytes.size());
  return out;
}

int64_t WireBytes(const google::protobuf::MessageLite& message) {
  // gRPC frames each message with a 1-byte compression flag and a 4-byte length.
  return static_cast<int64_t>(message.ByteSizeLong()) + 5;
}

}  // namespace trainpkg::ps::internal
