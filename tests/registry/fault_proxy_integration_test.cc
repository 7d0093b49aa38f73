// Push and pull through a fault-injecting proxy (fault_proxy.h) in front of
// a real docker-registry: connection resets mid-blob, 500/503, 429 with
// Retry-After, stalls past the client's timeout, content and digests
// changed in flight. Every push must either complete with the right digests
// (read back from the registry directly, not through our client) or fail
// with a Status naming the blob and what went wrong; either way the
// registry must hold no manifest whose blobs are missing, and no PATCH or
// upload PUT may be replayed blindly into a session.
#include <filesystem>
#include <map>
#include <regex>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "http/curl_transport.h"
#include "registry/image_puller.h"
#include "registry/image_pusher.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/layout.h"
#include "registry/registry_client.h"
#include "registry/streamed_upload.h"
#include "tests/http/scripted_transport.h"
#include "tests/registry/direct_registry_reader.h"
#include "tests/registry/fault_proxy.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::AllOf;
using testing::DirectRegistryReader;
using testing::FaultKind;
using testing::FaultProxy;
using testing::FaultRule;
using ::testing::Ge;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::IsSupersetOf;
using testing::ProxiedRequest;
using testing::PseudoRandomBytes;
using testing::RegistryServer;
using testing::TestImage;
using testing::WriteTestImage;

// Matches the upload PUT (or GET) of one blob: its digest's hex in the URL.
std::string BlobUrl(const oci::Descriptor& blob) { return blob.digest.hex(); }

constexpr char kManifestPut[] = "/manifests/";
constexpr char kUploadStart[] = "/blobs/uploads/$";
constexpr char kBlobHead[] = "/blobs/sha256:";

class FaultProxyTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(server_.Start({}), IsOk());
    ASSERT_THAT(proxy_.Start(server_.host()), IsOk());
    http::CurlTransportOptions curl;
    curl.stall_timeout = absl::Seconds(2);  // the proxy's stalls last longer (FaultRule::stall)
    RegistryClientOptions options;
    options.transport = http::MakeCurlTransport(curl);
    options.clock = &clock_;  // backoffs and Retry-After waits are recorded, not slept
    client_ = std::make_unique<RegistryClient>(options);
    auto layout = oci::Layout::Create(server_.dir() / "src");
    ASSERT_THAT(layout, IsOk());
    layout_.emplace(*layout);
    auto image = WriteTestImage(
        *layout_, "v1", {PseudoRandomBytes(300 * 1024, 1), PseudoRandomBytes(200 * 1024, 2)});
    ASSERT_THAT(image, IsOk());
    image_ = *image;
  }

  Reference Ref(const std::string& text) const {
    auto ref = ParseReference(proxy_.host() + "/" + text);
    EXPECT_THAT(ref, IsOk());
    return *ref;
  }

  absl::StatusOr<TransferResult> Push(const std::string& repo, const PushOptions& options = {}) {
    return PushImage(*client_, *layout_, "v1", Ref(repo + ":v1"), options);
  }

  // The manifest and every blob, read from the registry itself, hash to
  // the layout's digests and hold the layout's bytes.
  void ExpectStored(const std::string& repo) const {
    DirectRegistryReader direct(server_.host());
    auto manifest = direct.Manifest(repo, "v1");
    ASSERT_THAT(manifest, IsOk());
    EXPECT_EQ(oci::ComputeDigest(*manifest, oci::DigestAlgorithm::kSha256), image_.manifest.digest);
    for (const oci::Descriptor& blob : {image_.config, image_.layers[0], image_.layers[1]}) {
      auto bytes = direct.Blob(repo, blob.digest.ToString());
      ASSERT_THAT(bytes, IsOk());
      EXPECT_EQ(oci::ComputeDigest(*bytes, oci::DigestAlgorithm::kSha256), blob.digest);
      EXPECT_TRUE(*bytes == layout_->ReadBlob(blob).value_or("")) << blob.digest.ToString();
    }
  }

  // Nothing tagged in the registry refers to a blob it lacks; `repo` has no v1.
  void ExpectNoManifest(const std::string& repo) const {
    DirectRegistryReader direct(server_.host());
    EXPECT_EQ(direct.Manifest(repo, "v1").status().code(), absl::StatusCode::kNotFound);
    ExpectConsistent();
  }

  void ExpectConsistent() const {
    auto broken = DirectRegistryReader(server_.host()).ManifestsWithMissingBlobs();
    ASSERT_THAT(broken, IsOk());
    EXPECT_THAT(*broken, IsEmpty());
  }

  // In every upload session, a body-carrying PATCH or PUT that got no
  // answer or a refusal is never followed by another one unless a GET
  // asked the session where it stands in between.
  void ExpectNoBlindReplay() const {
    std::regex session_re("/blobs/uploads/([^/?]+)");
    std::map<std::string, bool> unsure;  // session → its last write's fate is unknown
    for (const ProxiedRequest& r : proxy_.requests()) {
      std::smatch m;
      if (!std::regex_search(r.target, m, session_re)) continue;
      std::string session = m[1];
      if (r.method == "GET") unsure[session] = false;
      bool write = r.method == "PATCH" || (r.method == "PUT" && r.body_bytes > 0);
      if (!write) continue;
      EXPECT_FALSE(unsure[session]) << r.method << " " << r.target
                                    << " went into a session whose previous write failed, "
                                       "without asking the session's state";
      unsure[session] = r.status == 0 || r.status >= 300;
    }
  }

  RegistryServer server_;
  FaultProxy proxy_;  // declared after the server: stopped before it
  trainpkg::testing::FakeClock clock_;
  std::unique_ptr<RegistryClient> client_;
  std::optional<oci::Layout> layout_;
  TestImage image_;
};

TEST_F(FaultProxyTest, ProbesTheRegistryOnceForAllBlobThreads) {
  auto pushed = Push("probe/app");
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(proxy_.tls_hellos(), 1) << "one https probe for all blob threads";
  EXPECT_EQ(proxy_.Count("GET", "^/v2/$"), 0)
      << "a refused TLS handshake settles plain HTTP without a second probe";
  ExpectStored("probe/app");
}

TEST_F(FaultProxyTest, NoBodyWaitsForContinue) {
  auto pushed = Push("continue/app");
  ASSERT_THAT(pushed, IsOk());
  int bodies = 0;
  for (const ProxiedRequest& r : proxy_.requests()) {
    bodies += r.body_bytes > 0;
    EXPECT_FALSE(r.expect_continue) << r.method << " " << r.target;
  }
  EXPECT_EQ(bodies, 4) << "config, two layers, manifest";
  ExpectStored("continue/app");
}

TEST_F(FaultProxyTest, UploadsTheLargestBlobFirst) {
  PushOptions one_at_a_time;
  one_at_a_time.jobs = 1;
  auto pushed = Push("order/app", one_at_a_time);
  ASSERT_THAT(pushed, IsOk());
  std::vector<std::string> uploaded;
  for (const ProxiedRequest& r : proxy_.requests()) {
    if (r.method != "PUT" || r.target.find("digest=") == std::string::npos) continue;
    for (const oci::Descriptor& blob : {image_.config, image_.layers[0], image_.layers[1]}) {
      if (r.target.find(blob.digest.hex()) != std::string::npos) {
        uploaded.push_back(blob.digest.hex());
      }
    }
  }
  // 300 KiB, 200 KiB, then the config of a few hundred bytes.
  EXPECT_THAT(uploaded,
              ::testing::ElementsAre(image_.layers[0].digest.hex(), image_.layers[1].digest.hex(),
                                     image_.config.digest.hex()));
  ASSERT_EQ(pushed->blobs.size(), 3u);
  EXPECT_EQ(pushed->blobs[0].descriptor.digest, image_.config.digest)
      << "the report keeps the manifest's order";
  ExpectStored("order/app");
}

// A blob uploaded while it is produced: chunks as they fill, the rest with
// the commit; the registry holds exactly the bytes written.
TEST_F(FaultProxyTest, StreamedUploadSendsChunksAsTheyFillAndCommits) {
  const std::string blob = PseudoRandomBytes(300 * 1024, 7);
  const oci::Digest digest = oci::ComputeDigest(blob, oci::DigestAlgorithm::kSha256);
  const Reference ref = Ref("stream/app:v1");
  {
    StreamedUpload upload(*client_, ref.repository, 64 * 1024);
    for (size_t at = 0; at < blob.size(); at += 7000) {
      EXPECT_THAT(upload.Write(std::string_view(blob).substr(at, 7000)), IsOk());
    }
    ASSERT_THAT(upload.Commit(digest), IsOk());
    EXPECT_EQ(upload.Commit(digest).code(), absl::StatusCode::kFailedPrecondition);
  }
  EXPECT_EQ(proxy_.Count("PATCH", "/blobs/uploads/"), 4) << "whole chunks; the rest with the PUT";
  EXPECT_EQ(proxy_.Count("DELETE", "/blobs/uploads/"), 0) << "a committed session is not cancelled";
  auto stored = DirectRegistryReader(server_.host()).Blob("stream/app", digest.ToString());
  ASSERT_THAT(stored, IsOk());
  EXPECT_TRUE(*stored == blob);

  // A commit under another digest is refused by the registry.
  StreamedUpload wrong(*client_, ref.repository, 64 * 1024);
  EXPECT_THAT(wrong.Write(blob), IsOk());
  EXPECT_FALSE(wrong.Commit(oci::ComputeDigest("other", oci::DigestAlgorithm::kSha256)).ok());
  EXPECT_FALSE(wrong.ok());

  // Abandoned before its commit (the producer failed): the session is cancelled.
  const int deletes = proxy_.Count("DELETE", "/blobs/uploads/");
  {
    StreamedUpload abandoned(*client_, ref.repository, 64 * 1024);
    EXPECT_THAT(abandoned.Write(blob), IsOk());
  }
  EXPECT_EQ(proxy_.Count("DELETE", "/blobs/uploads/"), deletes + 1);
}

// The first failure ends the stream without failing the producer: later
// writes are dropped, the session is cancelled, never written to blindly,
// and the commit reports the failure.
TEST_F(FaultProxyTest, StreamedUploadStopsAtTheFirstFailureAndCancelsItsSession) {
  proxy_.AddRule({.method = "PATCH",
                  .path_pattern = "/blobs/uploads/",
                  .occurrence = 2,
                  .kind = FaultKind::kResetRequest,
                  .after_bytes = 10 * 1024});
  const std::string blob = PseudoRandomBytes(300 * 1024, 8);
  {
    StreamedUpload upload(*client_, Ref("cut/app:v1").repository, 64 * 1024);
    for (size_t at = 0; at < blob.size(); at += 50'000) {
      EXPECT_THAT(upload.Write(std::string_view(blob).substr(at, 50'000)), IsOk());
    }
    EXPECT_FALSE(upload.Commit(oci::ComputeDigest(blob, oci::DigestAlgorithm::kSha256)).ok());
    EXPECT_FALSE(upload.ok());
  }  // the sender has stopped: every request it made is logged
  EXPECT_EQ(proxy_.fired(), 1);
  EXPECT_EQ(proxy_.Count("PATCH", "/blobs/uploads/"), 2) << "nothing sent after the failure";
  EXPECT_EQ(proxy_.Count("DELETE", "/blobs/uploads/"), 1);
  ExpectNoBlindReplay();
}

TEST_F(FaultProxyTest, ResetMidBlobStartsAFreshSession) {
  proxy_.AddRule({.method = "PUT",
                  .path_pattern = BlobUrl(image_.layers[0]),
                  .kind = FaultKind::kResetRequest,
                  .after_bytes = 100 * 1024});
  auto pushed = Push("reset/app");
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(proxy_.fired(), 1);
  EXPECT_EQ(proxy_.Count("PUT", BlobUrl(image_.layers[0])), 2) << "cut once, sent once more";
  ExpectNoBlindReplay();
  ExpectStored("reset/app");
}

TEST_F(FaultProxyTest, ResetMidPatchAsksTheSessionBeforeSendingMore) {
  PushOptions chunked;
  chunked.upload.chunk_size = 64 * 1024;
  proxy_.AddRule({.method = "PATCH",
                  .path_pattern = "/blobs/uploads/",
                  .occurrence = 3,
                  .kind = FaultKind::kResetRequest,
                  .after_bytes = 20 * 1024});
  auto pushed = Push("patch/app", chunked);
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(proxy_.fired(), 1);
  EXPECT_GE(proxy_.Count("GET", "/blobs/uploads/.+"), 1) << "the session was asked";
  ExpectNoBlindReplay();
  ExpectStored("patch/app");
}

TEST_F(FaultProxyTest, ServerErrorsAreRetriedAndUploadsGoToAFreshSession) {
  proxy_.AddRule({.method = "HEAD", .path_pattern = kBlobHead, .status = 500});
  proxy_.AddRule({.method = "POST", .path_pattern = kUploadStart, .status = 503});
  proxy_.AddRule({.method = "PUT", .path_pattern = BlobUrl(image_.layers[1]), .status = 503});
  proxy_.AddRule({.method = "PUT", .path_pattern = kManifestPut, .status = 500});
  auto pushed = Push("errors/app");
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(proxy_.fired(), 4);
  EXPECT_EQ(proxy_.Count("PUT", kManifestPut), 2);
  EXPECT_EQ(proxy_.Count("PUT", BlobUrl(image_.layers[1])), 2);
  ExpectNoBlindReplay();
  ExpectStored("errors/app");
}

TEST_F(FaultProxyTest, TooManyRequestsWaitsForRetryAfter) {
  proxy_.AddRule(
      {.method = "POST", .path_pattern = kUploadStart, .status = 429, .retry_after = "7"});
  proxy_.AddRule({.method = "PUT",
                  .path_pattern = BlobUrl(image_.layers[0]),
                  .status = 429,
                  .retry_after = "11"});
  proxy_.AddRule(
      {.method = "PUT", .path_pattern = kManifestPut, .status = 429, .retry_after = "9"});
  auto pushed = Push("busy/app");
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(proxy_.fired(), 3);
  // 3 sessions, the refused POST again, and a fresh session for the refused PUT.
  EXPECT_EQ(proxy_.Count("POST", kUploadStart), 5);
  EXPECT_EQ(proxy_.Count("PUT", BlobUrl(image_.layers[0])), 2);
  EXPECT_EQ(proxy_.Count("PUT", kManifestPut), 2);
  // Each refused request was followed by (at least) the wait it asked for.
  EXPECT_THAT(clock_.sleeps(),
              IsSupersetOf({absl::Seconds(7), absl::Seconds(11), absl::Seconds(9)}));
  ExpectNoBlindReplay();
  ExpectStored("busy/app");
}

TEST_F(FaultProxyTest, StallsPastTheTimeoutAreAbandonedAndRetried) {
  proxy_.AddRule(
      {.method = "HEAD", .path_pattern = BlobUrl(image_.config), .kind = FaultKind::kStall});
  proxy_.AddRule(
      {.method = "PUT", .path_pattern = BlobUrl(image_.layers[0]), .kind = FaultKind::kStall});
  auto pushed = Push("stall/app");
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(proxy_.fired(), 2);
  EXPECT_EQ(proxy_.Count("PUT", BlobUrl(image_.layers[0])), 2);
  ExpectNoBlindReplay();
  ExpectStored("stall/app");
}

TEST_F(FaultProxyTest, PersistentErrorsFailNamingTheBlobAndLeaveNoManifest) {
  proxy_.AddRule(
      {.method = "PUT", .path_pattern = BlobUrl(image_.layers[1]), .occurrence = 0, .status = 503});
  auto pushed = Push("down/app");
  ASSERT_FALSE(pushed.ok());
  EXPECT_EQ(pushed.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(pushed.status().message()),
              AllOf(HasSubstr(image_.layers[1].digest.ToString().substr(0, 19)),
                    HasSubstr("HTTP 503"), HasSubstr("down/app")));
  EXPECT_EQ(proxy_.Count("PUT", BlobUrl(image_.layers[1])), 3) << "1 session + 2 fresh ones";
  EXPECT_EQ(proxy_.Count("PUT", kManifestPut), 0);
  ExpectNoBlindReplay();
  ExpectNoManifest("down/app");
}

TEST_F(FaultProxyTest, ContentChangedInFlightIsRefusedNamingTheBlob) {
  proxy_.AddRule({.method = "PUT",
                  .path_pattern = BlobUrl(image_.layers[0]),
                  .occurrence = 0,
                  .kind = FaultKind::kCorruptRequestBody,
                  .after_bytes = 1000});
  auto pushed = Push("corrupt/app");
  ASSERT_FALSE(pushed.ok());
  EXPECT_EQ(pushed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(pushed.status().message()),
              AllOf(HasSubstr(image_.layers[0].digest.ToString().substr(0, 19)),
                    HasSubstr("DIGEST_INVALID")));
  ExpectNoManifest("corrupt/app");
}

TEST_F(FaultProxyTest, AWrongDigestInTheAnswersIsCheckedAgainstTheRegistry) {
  // The blob's commit answer names another digest: the client HEADs the
  // blob, finds the right one stored and goes on.
  proxy_.AddRule({.method = "PUT",
                  .path_pattern = BlobUrl(image_.layers[0]),
                  .kind = FaultKind::kWrongDigestHeader});
  auto pushed = Push("digest/app");
  ASSERT_THAT(pushed, IsOk());
  ExpectStored("digest/app");

  // The manifest's answer names another digest: a clear DataLoss; the
  // registry's manifest is the one sent, with all its blobs.
  proxy_.AddRule(
      {.method = "PUT", .path_pattern = "/manifests/v1", .kind = FaultKind::kWrongDigestHeader});
  auto refused = Push("digest/other");
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(refused.status().message()),
              AllOf(HasSubstr("digest/other:v1"), HasSubstr(image_.manifest.digest.ToString())));
  ExpectConsistent();
}

TEST_F(FaultProxyTest, PullResumesAfterResetsAndStalls) {
  ASSERT_THAT(Push("pull/app"), IsOk());
  proxy_.AddRule({.method = "GET",
                  .path_pattern = BlobUrl(image_.layers[0]),
                  .kind = FaultKind::kResetResponse,
                  .after_bytes = 100 * 1024});
  proxy_.AddRule({.method = "GET",
                  .path_pattern = BlobUrl(image_.layers[1]),
                  .kind = FaultKind::kStall,
                  .after_bytes = 50 * 1024});
  auto dst = oci::Layout::Create(server_.dir() / "dst");
  ASSERT_THAT(dst, IsOk());
  auto pulled = PullImage(*client_, Ref("pull/app:v1"), *dst, "v1", {});
  ASSERT_THAT(pulled, IsOk());
  EXPECT_EQ(proxy_.fired(), 2);
  EXPECT_EQ(proxy_.Count("GET", BlobUrl(image_.layers[0])), 2) << "cut once, resumed once";
  EXPECT_EQ(proxy_.Count("GET", BlobUrl(image_.layers[1])), 2) << "stalled once, resumed once";
  for (const oci::Descriptor& blob : {image_.config, image_.layers[0], image_.layers[1]}) {
    EXPECT_TRUE(dst->ReadBlob(blob).value_or("") == layout_->ReadBlob(blob).value_or("-"));
  }
  EXPECT_EQ(dst->Resolve("v1")->digest, image_.manifest.digest);
}

TEST_F(FaultProxyTest, PullRefusesContentThatDoesNotMatchItsDigest) {
  ASSERT_THAT(Push("pull/bad"), IsOk());
  proxy_.AddRule({.method = "GET",
                  .path_pattern = BlobUrl(image_.layers[1]),
                  .occurrence = 0,
                  .kind = FaultKind::kCorruptResponseBody,
                  .after_bytes = 4096});
  auto dst = oci::Layout::Create(server_.dir() / "dst");
  ASSERT_THAT(dst, IsOk());
  auto pulled = PullImage(*client_, Ref("pull/bad:v1"), *dst, "v1", {});
  ASSERT_FALSE(pulled.ok());
  EXPECT_EQ(pulled.status().code(), absl::StatusCode::kDataLoss);
  EXPECT_THAT(std::string(pulled.status().message()),
              HasSubstr(image_.layers[1].digest.ToString()));
  EXPECT_FALSE(dst->HasBlob(image_.layers[1].digest));
  EXPECT_FALSE(dst->Resolve("v1").ok()) << "nothing is tagged";

  // A manifest whose answer names another digest is refused too.
  proxy_.AddRule(
      {.method = "GET", .path_pattern = "/manifests/v1", .kind = FaultKind::kWrongDigestHeader});
  auto manifest = client_->GetManifest(Ref("pull/bad:v1"));
  EXPECT_EQ(manifest.status().code(), absl::StatusCode::kDataLoss);
}

}  // namespace
}  // namespace trainpkg::registry
