// Tensors larger than one message travel as streams of chunks: a variable
// of 12 MiB goes through ps and client that both keep gRPC's 4 MiB limit on
// a received message.
#include <cmath>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"
#include "trainer_runtime/ps/internal/chunks.h"
#include "trainer_runtime/ps/parameter_server.h"
#include "trainer_runtime/ps/variable_client.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::ps {
namespace {

TEST(ChunksTest, SplitsIntoChunksOfAtMostTheGivenSize) {
  std::vector<float> values(1000);
  for (size_t i = 0; i < values.size(); ++i) values[i] = static_cast<float>(i);
  std::vector<float> joined;
  int chunks = 0;
  ASSERT_TRUE(internal::ForEachChunk(3, 0, 0, values, 256, [&](const proto::TensorChunk& c) {
    EXPECT_LE(c.values().size(), 256u);
    EXPECT_EQ(c.offset(), static_cast<int64_t>(joined.size()));
    EXPECT_EQ(c.shard(), 3);
    bool ok = false;
    std::vector<float> part = internal::ChunkValues(c, &ok);
    EXPECT_TRUE(ok);
    joined.insert(joined.end(), part.begin(), part.end());
    ++chunks;
    return true;
  }));
  EXPECT_EQ(chunks, 16);  // 4000 bytes in chunks of 256
  EXPECT_EQ(joined, values);
  int empty_chunks = 0;
  internal::ForEachChunk(0, 0, 0, {}, 256, [&](const proto::TensorChunk& c) {
    ++empty_chunks;
    // Found by fuzz_ps_messages under UBSan: memcpy to the null data() of
    // the empty result.
    bool ok = false;
    EXPECT_TRUE(internal::ChunkValues(c, &ok).empty());
    EXPECT_TRUE(ok);
    return true;
  });
  EXPECT_EQ(empty_chunks, 1);
}

TEST(StreamingTest, VariableLargerThanTheMessageLimitRoundTrips) {
  auto server = ParameterServer::Start("127.0.0.1:0");
  ASSERT_THAT(server, IsOk());
  constexpr int64_t kRows = 3 << 10;  // 3072 x 1024 floats = 12 MiB
  nn::Parameter big("big", {kRows, 1024});
  for (int64_t i = 0; i < big.value.num_elements(); ++i) {
    big.value.data()[i] = static_cast<float>(i % 1000) * 0.001f;
    big.grad.data()[i] = 1.0f;
  }
  auto plan = ShardPlan::Create({{"big", {kRows, 1024}}}, nullptr, 1);
  ASSERT_THAT(plan, IsOk());
  auto client = VariableClient::Create(*plan, {(*server)->address()});
  ASSERT_THAT(client, IsOk());
  OptimizerConfig sgd;
  sgd.kind = "sgd";
  sgd.sgd.learning_rate = 0.5f;
  ASSERT_THAT((*client)->Configure(sgd), IsOk());
  VariableState state;
  state.values.emplace_back(big.value.values().begin(), big.value.values().end());
  ASSERT_THAT((*client)->Assign(state), IsOk());
  const int64_t param_bytes = big.value.num_elements() * 4;
  nn::Parameter* list[] = {&big};
  ASSERT_THAT((*client)->Push(list), IsOk());  // w -= 0.5
  const int64_t received_before = (*client)->bytes_received();
  ASSERT_THAT((*client)->Pull(list), IsOk());
  for (int64_t i = 0; i < big.value.num_elements(); i += 4099) {
    EXPECT_FLOAT_EQ(big.value.data()[i], static_cast<float>(i % 1000) * 0.001f - 0.5f) << i;
  }
  // The pull's wire bytes: the values plus a little framing per chunk.
  const int64_t pulled = (*client)->bytes_received() - received_before;
  EXPECT_GE(pulled, param_bytes);
  EXPECT_LT(pulled, param_bytes + param_bytes / 100);
}

}  // namespace
}  // namespace trainpkg::ps
