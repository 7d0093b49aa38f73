#include "http/retry_transport.h"

#include <memory>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/http/scripted_transport.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::http {
namespace {

using testing::Response;
using testing::ScriptedTransport;
using trainpkg::testing::FakeClock;

class RetryTransportTest : public ::testing::Test {
 protected:
  RetryTransportTest()
      : inner_(std::make_shared<ScriptedTransport>()),
        retry_(inner_, RetryPolicy{}, clock_, [] { return 0.5; }) {}

  FakeClock clock_;
  std::shared_ptr<ScriptedTransport> inner_;
  RetryTransport retry_;
};

absl::Status Reset() {
  return MakeTransportError(TransportFailure::kReset, absl::StatusCode::kUnavailable, "reset");
}

TEST_F(RetryTransportTest, RetriesServerErrorsWithExponentialBackoff) {
  inner_->Push(Response(503));
  inner_->Push(Response(500));
  inner_->Push(Response(502));
  inner_->Push(Response(200, "ok"));
  auto response = retry_.Send(MakeRequest("GET", "http://r/v2/", true));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 200);
  EXPECT_THAT(clock_.sleeps(),
              ::testing::ElementsAre(absl::Milliseconds(500), absl::Seconds(1), absl::Seconds(2)));
}

TEST_F(RetryTransportTest, GivesUpAfterMaxAttemptsAndReturnsTheLastResponse) {
  for (int i = 0; i < 4; ++i) inner_->Push(Response(503, "busy"));
  auto response = retry_.Send(MakeRequest("HEAD", "http://r/v2/x/blobs/d", true));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 503);
  EXPECT_EQ(inner_->requests().size(), 4u);
}

TEST_F(RetryTransportTest, HonoursRetryAfterSecondsAndDates) {
  inner_->Push(Response(429, "", {{"Retry-After", "7"}}));
  inner_->Push(Response(429, "", {{"Retry-After", "Fri, 15 Jan 2027 09:00:00 GMT"}}));
  inner_->Push(Response(200));
  ASSERT_THAT(retry_.Send(MakeRequest("GET", "http://r/v2/", true)), IsOk());
  ASSERT_EQ(clock_.sleeps().size(), 2u);
  EXPECT_EQ(clock_.sleeps()[0], absl::Seconds(7));
  EXPECT_EQ(clock_.sleeps()[1], absl::Seconds(60));  // the date is far away: capped
}

TEST_F(RetryTransportTest, RetriesConnectionResetsAndTimeouts) {
  inner_->Push(Reset());
  inner_->Push(MakeTransportError(TransportFailure::kTimeout, absl::StatusCode::kDeadlineExceeded,
                                  "stalled"));
  inner_->Push(Response(200));
  auto response = retry_.Send(MakeRequest("GET", "http://r/v2/", true));
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(inner_->requests().size(), 3u);
}

TEST_F(RetryTransportTest, NeverRetriesNonIdempotentRequests) {
  inner_->Push(Response(503));
  StringBodySource chunk("abc");
  HttpRequest patch = MakeRequest("PATCH", "http://r/v2/x/blobs/uploads/u", false);
  patch.body = &chunk;
  auto response = retry_.Send(patch);
  ASSERT_THAT(response, IsOk());
  EXPECT_EQ(response->status, 503);
  inner_->Push(Reset());
  EXPECT_FALSE(retry_.Send(patch).ok());
  EXPECT_EQ(inner_->requests().size(), 2u);
  EXPECT_TRUE(clock_.sleeps().empty());
}

TEST_F(RetryTransportTest, DoesNotRetryClientErrorsOrTlsFailures) {
  inner_->Push(Response(404));
  inner_->Push(Response(501));
  inner_->Push(MakeTransportError(TransportFailure::kTlsVerify,
                                  absl::StatusCode::kFailedPrecondition, "untrusted"));
  EXPECT_EQ(retry_.Send(MakeRequest("GET", "http://r/a", true))->status, 404);
  EXPECT_EQ(retry_.Send(MakeRequest("GET", "http://r/b", true))->status, 501);
  EXPECT_FALSE(retry_.Send(MakeRequest("GET", "http://r/c", true)).ok());
  EXPECT_EQ(inner_->requests().size(), 3u);
}

TEST_F(RetryTransportTest, ReplaysTheBodyFromTheStart) {
  inner_->Push(Response(500));
  inner_->Push(Response(201));
  StringBodySource manifest("{\"schemaVersion\":2}");
  HttpRequest put = MakeRequest("PUT", "http://r/v2/x/manifests/v1", true);
  put.body = &manifest;
  ASSERT_EQ(retry_.Send(put)->status, 201);
  ASSERT_EQ(inner_->requests().size(), 2u);
  EXPECT_EQ(inner_->requests()[1].body, "{\"schemaVersion\":2}");
}

class OneShotSource : public BodySource {
 public:
  absl::StatusOr<size_t> Read(char*, size_t) override { return 0; }
  std::optional<uint64_t> Size() const override { return std::nullopt; }
  bool Rewind() override { return false; }
};

TEST_F(RetryTransportTest, DoesNotRetryWhenTheBodyCannotRewind) {
  inner_->Push(Response(503));
  OneShotSource pipe;
  HttpRequest put = MakeRequest("PUT", "http://r/v2/x/manifests/v1", true);
  put.body = &pipe;
  EXPECT_EQ(retry_.Send(put)->status, 503);
  EXPECT_EQ(inner_->requests().size(), 1u);
}

TEST_F(RetryTransportTest, DoesNotRetryOnceBytesReachedTheSink) {
  // A transport that delivers bytes and then fails, like a reset mid-blob.
  class MidBodyReset : public HttpTransport {
   public:
    absl::StatusOr<HttpResponse> Send(const HttpRequest& request) override {
      ++sends;
      if (request.response_sink) (void)request.response_sink("some bytes");
      return Reset();
    }
    int sends = 0;
  };
  auto reset = std::make_shared<MidBodyReset>();
  RetryTransport retry(reset, RetryPolicy{}, clock_, [] { return 0.5; });
  HttpRequest get = MakeRequest("GET", "http://r/v2/x/blobs/d", true);
  std::string got;
  get.response_sink = [&](std::string_view chunk) {
    got.append(chunk);
    return absl::OkStatus();
  };
  EXPECT_FALSE(retry.Send(get).ok());
  EXPECT_EQ(reset->sends, 1);
  EXPECT_EQ(got, "some bytes");
}

TEST(BackoffTest, JitterSpreadsAndCapsAtMaxBackoff) {
  RetryPolicy policy;
  EXPECT_EQ(BackoffFor(policy, 1, 0.0), absl::Milliseconds(400));
  EXPECT_EQ(BackoffFor(policy, 1, 0.5), absl::Milliseconds(500));
  EXPECT_EQ(BackoffFor(policy, 3, 0.5), absl::Seconds(2));
  EXPECT_EQ(BackoffFor(policy, 10, 0.5), absl::Seconds(10));
  EXPECT_LT(BackoffFor(policy, 10, 0.999), absl::Seconds(12));
}

TEST(BackoffTest, ParsesRetryAfter) {
  absl::Time now = absl::FromUnixSeconds(1800000000);  // Fri, 15 Jan 2027 08:00:00 GMT
  EXPECT_EQ(ParseRetryAfter("120", now), absl::Seconds(120));
  EXPECT_EQ(ParseRetryAfter("Fri, 15 Jan 2027 08:00:30 GMT", now), absl::Seconds(30));
  EXPECT_EQ(ParseRetryAfter("Fri, 15 Jan 2027 07:00:00 GMT", now), absl::ZeroDuration());
  EXPECT_EQ(ParseRetryAfter("soon", now), std::nullopt);
  EXPECT_EQ(ParseRetryAfter("", now), std::nullopt);
}

TEST(BackoffTest, RetryableStatuses) {
  for (int s : {408, 429, 500, 502, 503, 504, 522}) EXPECT_TRUE(IsRetryableHttpStatus(s)) << s;
  for (int s : {200, 201, 400, 401, 403, 404, 416, 501, 505}) {
    EXPECT_FALSE(IsRetryableHttpStatus(s)) << s;
  }
}

}  // namespace
}  // namespace trainpkg::http
