// Fuzz target: the parameter server's message handling without gRPC. The
// input is a script of messages, each [kind byte][length byte][serialized
// proto]: a ConfigureRequest (shards and optimizer) goes to
// ParameterStore::Configure; a TensorChunk is read with ChunkValues and goes
// to Assign, or, when it covers its whole shard, to ApplyGradient; a
// PullRequest snapshots the store and splits it with ForEachChunk, as the
// Pull handler does. Must never crash, hang or trip a sanitizer; errors are
// fine.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "trainer_runtime/ps/internal/chunks.h"
#include "trainer_runtime/ps/internal/optimizer_proto.h"
#include "trainer_runtime/ps/optimizer_config.h"
#include "trainer_runtime/ps/parameter_store.h"
#include "trainer_runtime/ps/proto/ps.pb.h"

namespace {

using namespace trainpkg::ps;

void Configure(ParameterStore& store, std::string_view payload) {
  proto::ConfigureRequest request;
  if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
  std::vector<ShardDef> shards;
  for (const proto::ShardDef& s : request.shards()) shards.push_back({s.id(), s.name(), s.size()});
  (void)store.Configure(std::move(shards), internal::OptimizerConfigFromProto(request.optimizer()));
}

void Chunk(ParameterStore& store, std::string_view payload) {
  proto::TensorChunk chunk;
  if (!chunk.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
  bool ok = false;
  std::vector<float> values = internal::ChunkValues(chunk, &ok);
  if (!ok) return;
  absl::StatusOr<int64_t> size = store.ShardSize(chunk.shard());
  if (size.ok() && chunk.slot() == 0 && chunk.offset() == 0 &&
      static_cast<int64_t>(values.size()) == *size) {
    (void)store.ApplyGradient(chunk.shard(), values);
  } else {
    (void)store.Assign(chunk.shard(), chunk.slot(), chunk.offset(), values, chunk.iterations());
  }
}

void Pull(ParameterStore& store, std::string_view payload) {
  proto::PullRequest request;
  if (!request.ParseFromArray(payload.data(), static_cast<int>(payload.size()))) return;
  absl::StatusOr<std::vector<ShardSnapshot>> snapshot =
      store.Snapshot(request.with_optimizer_state());
  if (!snapshot.ok()) return;
  const int64_t chunk_bytes =
      request.chunk_bytes() > 0 ? request.chunk_bytes() : internal::kDefaultChunkBytes;
  for (const ShardSnapshot& shard : *snapshot) {
    (void)internal::ForEachChunk(shard.id, 0, shard.iterations, shard.values, chunk_bytes,
                                 [](const proto::TensorChunk&) { return true; });
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ParameterStore store;
  std::string_view script(reinterpret_cast<const char*>(data), size);
  while (script.size() >= 2) {
    const uint8_t kind = static_cast<uint8_t>(script[0]) % 3;
    const size_t length = std::min<size_t>(static_cast<uint8_t>(script[1]), script.size() - 2);
    std::string_view payload = script.substr(2, length);
    script.remove_prefix(2 + length);
    if (kind == 0) {
      Configure(store, payload);
    } else if (kind == 1) {
      Chunk(store, payload);
    } else {
      Pull(store, payload);
    }
  }
  return 0;
}
