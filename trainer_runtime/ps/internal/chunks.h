// Splitting float tensors into TensorChunk messages of at most a given
// payload size, and reading a chunk's values back.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_CHUNKS_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_CHUNKS_H_

#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "trainer_runtime/ps/proto/ps.pb.h"

namespace trainpkg::ps::internal {

// Payload bytes per chunk when the caller does not say: 256 KiB.
inline constexpr int64_t kDefaultChunkBytes = 256 << 10;

// The highest optimizer slot a chunk may name: nn's optimizers keep at most
// two (Adam's m and v), so a larger one is a peer's error, never a reason
// to allocate.
inline constexpr int kMaxSlot = 2;

// Calls `send` once per chunk of `values` (at least one chunk, even for an
// empty tensor), each carrying at most max(4, chunk_bytes) bytes of
// values; stops at the first send that returns false and returns false.
bool ForEachChunk(int shard, int slot, int64_t iterations, std::span<const float> values,
                  int64_t chunk_bytes, const std::function<bool(const proto::TensorChunk&)>& send);

// The chunk's values, or an empty vector with ok = false when its byte
// count is not a multiple of 4.
std::vector<float> ChunkValues(const proto::TensorChunk& chunk, bool* ok);

// Bytes a message occupies on the wire inside gRPC's framing: the
// serialized message plus gRPC's 5-byte length prefix (HTTP/2 frame headers
// are not counted).
int64_t WireBytes(const google::protobuf::MessageLite& message);

}  // namespace trainpkg::ps::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_CHUNKS_H_
