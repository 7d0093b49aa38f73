#include "registry/oci/digest.h"

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/hashing_writer.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::oci {
namespace {

using ::testing::HasSubstr;

constexpr std::string_view kSha256Empty =
    "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855";
constexpr std::string_view kSha256Abc =
    "sha256:ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";
constexpr std::string_view kSha512Abc =
    "sha512:ddaf35a193617abacc417349ae20413112e6fa4e89a97ea20a9eeee64b55d39a"
    "2192992a274fc1a836ba3c23a3feebbd454d4423643ce80e2a9ac94fa54ca49f";

TEST(DigestTest, KnownVectors) {
  EXPECT_EQ(Sha256Digest("").ToString(), kSha256Empty);
  EXPECT_EQ(Sha256Digest("abc").ToString(), kSha256Abc);
  EXPECT_EQ(ComputeDigest("abc", DigestAlgorithm::kSha512).ToString(), kSha512Abc);
}

TEST(DigestTest, StreamingEqualsOneShot) {
  std::string data;
  for (size_t i = 0; i < 300000; ++i) data.push_back(static_cast<char>((i * 7919) % 251));
  for (size_t chunk : {1u, 63u, 64u, 4096u, 100000u}) {
    DigestBuilder builder;
    for (size_t at = 0; at < data.size(); at += chunk) {
      builder.Update(std::string_view(data).substr(at, chunk));
    }
    EXPECT_EQ(builder.size(), static_cast<int64_t>(data.size()));
    EXPECT_EQ(builder.Finish(), Sha256Digest(data)) << "chunk " << chunk;
  }
}

TEST(DigestTest, ParseRoundTrips) {
  auto sha256 = Digest::Parse(kSha256Abc);
  ASSERT_THAT(sha256, IsOk());
  EXPECT_EQ(sha256->algorithm(), DigestAlgorithm::kSha256);
  EXPECT_EQ(sha256->ToString(), kSha256Abc);
  EXPECT_EQ(*sha256, Sha256Digest("abc"));
  auto sha512 = Digest::Parse(kSha512Abc);
  ASSERT_THAT(sha512, IsOk());
  EXPECT_EQ(sha512->algorithm_name(), "sha512");
  EXPECT_EQ(sha512->hex().size(), 128u);
}

TEST(DigestTest, RejectsBadDigests) {
  std::string hex64(64, 'a');
  struct Case {
    std::string text;
    std::string message;
  } cases[] = {
      {"", "expected <algorithm>:<encoded>"},
      {hex64, "expected <algorithm>:<encoded>"},
      {"sha256:abc", "needs 64 hex digits, got 3"},
      {"sha256:" + std::string(64, 'A'), "lowercase hex"},
      {"sha256:" + std::string(63, 'a') + "g", "lowercase hex"},
      {"SHA256:" + hex64, "malformed algorithm"},
      {"sha256+:" + hex64, "malformed algorithm"},
      {"sha256:", "malformed encoded part"},
      {"md5:" + std::string(32, 'a'), "unsupported digest algorithm \"md5\""},
      {"blake3:" + hex64, "unsupported digest algorithm \"blake3\""},
      {"sha512:" + hex64, "needs 128 hex digits"},
  };
  for (const Case& c : cases) {
    auto digest = Digest::Parse(c.text);
    ASSERT_FALSE(digest.ok()) << c.text;
    EXPECT_EQ(digest.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(digest.status().message()), HasSubstr(c.message)) << c.text;
  }
}

TEST(DigestTest, EmptyDigest) {
  Digest empty;
  EXPECT_TRUE(empty.empty());
  EXPECT_EQ(empty.ToString(), "");
  EXPECT_FALSE(Sha256Digest("").empty());
}

TEST(DigestTest, DigestFileStreamsTheFile) {
  ::trainpkg::testing::TempDir dir;
  const std::string path = (dir / "digest_file_test.bin").string();
  std::string data(3 << 20, 'x');
  data += "tail";
  std::ofstream(path, std::ios::binary) << data;
  auto result = DigestFile(path);
  ASSERT_THAT(result, IsOk());
  EXPECT_EQ(result->digest, Sha256Digest(data));
  EXPECT_EQ(result->size, static_cast<int64_t>(data.size()));

  auto missing = DigestFile(dir / "no_such_file");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("no_such_file"));
}

class StringSink : public ByteSink {
 public:
  absl::Status Write(std::string_view data) override {
    if (fail) return absl::UnavailableError("sink full");
    bytes.append(data);
    return absl::OkStatus();
  }
  std::string bytes;
  bool fail = false;
};

TEST(HashingWriterTest, HashesCountsAndForwards) {
  StringSink sink;
  HashingWriter writer(&sink);
  ASSERT_THAT(writer.Write("ab"), IsOk());
  ASSERT_THAT(writer.Write("c"), IsOk());
  EXPECT_EQ(writer.size(), 3);
  EXPECT_EQ(sink.bytes, "abc");
  EXPECT_EQ(writer.Finish().ToString(), kSha256Abc);
}

TEST(HashingWriterTest, ChainsAndHashesOnlyAcceptedBytes) {
  StringSink sink;
  HashingWriter inner(&sink);
  HashingWriter outer(&inner);
  ASSERT_THAT(outer.Write("abc"), IsOk());
  sink.fail = true;
  absl::Status failed = outer.Write("more");
  EXPECT_EQ(failed.code(), absl::StatusCode::kUnavailable);
  EXPECT_EQ(outer.size(), 3);
  EXPECT_EQ(inner.Finish(), outer.Finish());
}

TEST(HashingWriterTest, HashOnlyWithoutNext) {
  HashingWriter writer;
  ASSERT_THAT(writer.Write(""), IsOk());
  EXPECT_EQ(writer.Finish().ToString(), kSha256Empty);
}

}  // namespace
}  // namespace trainpkg::oci
