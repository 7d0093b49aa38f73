#include "packager/layer/internal/parallel_gzip_writer.h"

#include <atomic>
#include <chrono>
#include <random>
#include <string>
#include <thread>

#include "gtest/gtest.h"
#include "packager/layer/internal/gzip_member.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::layer_internal {
namespace {

using testing::Gunzip;
using testing::StringSink;

std::string MixedInput(size_t size) {
  std::mt19937_64 rng(42);
  std::string out;
  while (out.size() < size) {
    if ((out.size() / 5000) % 2 == 0) {
      out += "the quick brown fox jumps over the lazy dog " + std::to_string(out.size()) + "\n";
    } else {
      for (int i = 0; i < 64; ++i) out += static_cast<char>(rng() & 0xff);
    }
  }
  out.resize(size);
  return out;
}

std::string Compress(const std::string& input, ParallelGzipWriter::Options options,
                     size_t write_size) {
  StringSink sink;
  ParallelGzipWriter writer(&sink, options);
  for (size_t i = 0; i < input.size(); i += write_size) {
    EXPECT_THAT(writer.Write(std::string_view(input).substr(i, write_size)), IsOk());
  }
  EXPECT_THAT(writer.Finish(), IsOk());
  return sink.bytes;
}

TEST(ParallelGzipWriterTest, SameBytesForEveryThreadCountAndRoundTrips) {
  const std::string input = MixedInput(3 * 1000 * 1000 + 17);
  for (size_t block : {size_t{4096}, size_t{65536}, size_t{1} << 20, size_t{8} << 20}) {
    const std::string single =
        Compress(input, {.level = 6, .block_size = block, .threads = 1}, 100'003);
    ASSERT_EQ(Gunzip(single), input) << "block " << block;
    for (int threads : {2, 3, 4}) {
      EXPECT_EQ(Compress(input, {.level = 6, .block_size = block, .threads = threads}, 7'919),
                single)
          << "block " << block << " threads " << threads;
    }
  }
}

TEST(ParallelGzipWriterTest, MembersHaveTheFixedHeader) {
  const std::string input = MixedInput(10000);
  for (int level : {0, 1, 6, 9, 12}) {
    const std::string out =
        Compress(input, {.level = level, .block_size = 4000, .threads = 2}, 999);
    EXPECT_EQ(out.substr(0, 10), GzipMemberHeader(level));
    EXPECT_EQ(Gunzip(out), input);
  }
  EXPECT_EQ(GzipMemberHeader(6), std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10));
  EXPECT_EQ(GzipMemberHeader(1)[8], 4);
  EXPECT_EQ(GzipMemberHeader(9)[8], 2);
}

TEST(ParallelGzipWriterTest, EmptyInputIsOneEmptyMember) {
  for (int threads : {1, 2}) {
    const std::string out = Compress("", {.level = 6, .block_size = 1024, .threads = threads}, 1);
    EXPECT_EQ(out.substr(0, 10), GzipMemberHeader(6));
    EXPECT_LE(out.size(), 32u);
    EXPECT_EQ(Gunzip(out), "");
  }
}

TEST(ParallelGzipWriterTest, IncompressibleBlocksAreStoredAndRoundTrip) {
  std::mt19937_64 rng(9);
  std::string random(1 << 20, '\0');
  for (char& c : random) c = static_cast<char>(rng() & 0xff);
  const std::string text = MixedInput(1 << 20);
  for (int threads : {1, 2}) {
    const std::string out =
        Compress(random + text, {.level = 6, .block_size = 1 << 20, .threads = threads}, 65536);
    EXPECT_EQ(Gunzip(out), random + text);
    // Stored: 5 bytes per 64 KiB deflate block plus the member frame.
    const size_t first_member = random.size() + 18 + 5 * 16 + 5;
    EXPECT_LT(out.size(), first_member + text.size());
    EXPECT_EQ(out.substr(first_member, 10), GzipMemberHeader(6)) << "second member";
  }
}

class FailingSink final : public oci::ByteSink {
 public:
  absl::Status Write(std::string_view) override { return absl::UnavailableError("disk gone"); }
};

TEST(ParallelGzipWriterTest, SinkErrorsAreReturnedAndSticky) {
  FailingSink sink;
  ParallelGzipWriter writer(&sink, {.level = 1, .block_size = 1024, .threads = 2});
  absl::Status status;
  const std::string input = MixedInput(64 * 1024);
  for (int i = 0; i < 64 && status.ok(); ++i) {
    status = writer.Write(std::string_view(input).substr(static_cast<size_t>(i) * 1024, 1024));
  }
  if (status.ok()) status = writer.Finish();
  EXPECT_EQ(status.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(writer.Write("x").code(), absl::StatusCode::kUnavailable);
}

// Records its calls, and whether two of them ever overlapped; each call
// takes a while so that an overlap would have time to happen.
class SlowCountingSink final : public oci::ByteSink {
 public:
  absl::Status Write(std::string_view data) override {
    if (inside_.exchange(true)) overlapped_ = true;
    std::this_thread::sleep_for(std::chrono::microseconds(200));
    bytes_.append(data.data(), data.size());
    ++calls_;
    inside_ = false;
    return absl::OkStatus();
  }
  std::string bytes() const { return bytes_; }
  int calls() const { return calls_.load(); }
  bool overlapped() const { return overlapped_.load(); }

 private:
  std::atomic<bool> inside_{false};
  std::atomic<bool> overlapped_{false};
  std::atomic<int> calls_{0};
  std::string bytes_;
};

TEST(ParallelGzipWriterTest, MembersAreWrittenInOrderOneCallAtATimeAndAllBeforeFinishReturns) {
  const std::string input = MixedInput(200 * 1000);
  const std::string expected = Compress(input, {.level = 1, .block_size = 4096, .threads = 1}, 4096);
  for (int threads : {2, 4}) {
    SlowCountingSink sink;
    ParallelGzipWriter writer(&sink, {.level = 1, .block_size = 4096, .threads = threads});
    for (size_t i = 0; i < input.size(); i += 3000) {
      ASSERT_THAT(writer.Write(std::string_view(input).substr(i, 3000)), IsOk());
    }
    ASSERT_THAT(writer.Finish(), IsOk());
    const int calls = sink.calls();  // read once Finish returned: nothing may follow
    EXPECT_EQ(calls, static_cast<int>((input.size() + 4095) / 4096)) << "one call per member";
    EXPECT_FALSE(sink.overlapped()) << "threads " << threads;
    EXPECT_EQ(sink.bytes(), expected) << "threads " << threads;
  }
}

TEST(ParallelGzipWriterTest, AbandonedWithoutFinishStopsWritingAndDoesNotHang) {
  const std::string input = MixedInput(400 * 1000);
  SlowCountingSink sink;
  {
    ParallelGzipWriter writer(&sink, {.level = 6, .block_size = 4096, .threads = 2});
    ASSERT_THAT(writer.Write(input), IsOk());
  }  // destroyed with up to 4 blocks in flight
  const int members = static_cast<int>(input.size() / 4096);
  EXPECT_LT(sink.calls(), members) << "the blocks still in flight were not written";
  EXPECT_FALSE(sink.overlapped());
}

}  // namespace
}  // namespace trainpkg::packager::layer_internal
