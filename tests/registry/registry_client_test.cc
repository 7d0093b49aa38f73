// How RegistryClient settles a registry's scheme, against a scripted
// transport: what goes over the wire before the first real request.
#include "registry/registry_client.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/digest_builder.h"
#include "registry/reference.h"
#include "tests/http/scripted_transport.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;
using ::trainpkg::testing::StatusIs;

namespace trainpkg::registry {
namespace {

using http::testing::RecordedRequest;
using http::testing::Response;
using http::testing::ScriptedTransport;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

class SchemeTest : public ::testing::Test {
 protected:
  RegistryClient Client(std::vector<std::string> insecure = {}) {
    RegistryClientOptions options;
    options.transport = transport_;
    options.clock = &clock_;
    options.insecure_registries = std::move(insecure);
    options.curl.certs_dir = "/nonexistent-certs.d";
    return RegistryClient(options);
  }

  std::vector<std::string> Sent() const {
    std::vector<std::string> sent;
    for (const RecordedRequest& r : transport_->requests()) sent.push_back(r.method + " " + r.url);
    return sent;
  }

  std::string Blob(const std::string& host) const {
    return "HEAD " + host + "/v2/app/blobs/" + digest_.ToString();
  }

  static absl::Status TlsRefused() {
    return http::MakeTransportError(http::TransportFailure::kTlsHandshake,
                                    absl::StatusCode::kFailedPrecondition,
                                    "TLS handshake failed: wrong version number");
  }

  std::shared_ptr<ScriptedTransport> transport_ = std::make_shared<ScriptedTransport>();
  trainpkg::testing::FakeClock clock_;
  oci::Digest digest_ = oci::Sha256Digest("blob");
};

TEST_F(SchemeTest, AnHttpsOnlyRegistryIsNotProbed) {
  transport_->Push(Response(404));
  transport_->Push(Response(404));
  RegistryClient client = Client();
  ASSERT_THAT(client.StatBlob({"reg.test", "app"}, digest_), IsOk());
  ASSERT_THAT(client.StatBlob({"reg.test", "app"}, digest_), IsOk());
  EXPECT_THAT(Sent(), ElementsAre(Blob("https://reg.test"), Blob("https://reg.test")));
}

TEST_F(SchemeTest, AnHttpsOnlyRegistrysConnectionErrorComesFromTheRealRequest) {
  http::RetryPolicy no_retry;
  no_retry.max_attempts = 1;
  RegistryClientOptions options;
  options.transport = transport_;
  options.clock = &clock_;
  options.retry = no_retry;
  RegistryClient client(options);
  transport_->Push(http::MakeTransportError(
      http::TransportFailure::kConnect, absl::StatusCode::kUnavailable, "cannot connect: refused"));
  auto stat = client.StatBlob({"reg.test", "app"}, digest_);
  ASSERT_FALSE(stat.ok());
  EXPECT_EQ(stat.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(std::string(stat.status().message()), ::testing::HasSubstr("checking blob sha256:"));
  EXPECT_THAT(std::string(stat.status().message()), ::testing::HasSubstr("in reg.test/app: "));
  EXPECT_THAT(std::string(stat.status().message()), ::testing::HasSubstr("cannot connect"));
  EXPECT_EQ(http::TransportFailureOf(stat.status()), http::TransportFailure::kConnect)
      << "payload kept";
}

TEST_F(SchemeTest, ARefusedHandshakeSettlesPlainHttpWithoutASecondProbe) {
  transport_->Push(TlsRefused());
  transport_->Push(Response(404));
  transport_->Push(Response(404));
  RegistryClient client = Client({"reg.test:5000"});
  ASSERT_THAT(client.StatBlob({"reg.test:5000", "app"}, digest_), IsOk());
  ASSERT_THAT(client.StatBlob({"reg.test:5000", "app"}, digest_), IsOk());
  EXPECT_THAT(Sent(), ElementsAre("GET https://reg.test:5000/v2/", Blob("http://reg.test:5000"),
                                  Blob("http://reg.test:5000")));
  EXPECT_FALSE(transport_->requests()[0].headers.Get("Authorization").has_value());
}

TEST_F(SchemeTest, ALoopbackRegistrySpeakingTlsStaysOnHttps) {
  transport_->Push(Response(401));  // the probe asks only whether TLS is spoken
  transport_->Push(Response(404));
  RegistryClient client = Client();
  ASSERT_THAT(client.StatBlob({"127.0.0.1:5000", "app"}, digest_), IsOk());
  EXPECT_THAT(Sent(),
              ElementsAre("GET https://127.0.0.1:5000/v2/", Blob("https://127.0.0.1:5000")));
}

TEST_F(SchemeTest, ALoopbackRegistryThatCannotBeReachedIsNamed) {
  RegistryClientOptions options;
  options.transport = transport_;
  options.clock = &clock_;
  options.retry.max_attempts = 1;
  RegistryClient client(options);
  transport_->Push(http::MakeTransportError(
      http::TransportFailure::kConnect, absl::StatusCode::kUnavailable, "cannot connect: refused"));
  auto stat = client.StatBlob({"127.0.0.1:5000", "app"}, digest_);
  ASSERT_FALSE(stat.ok());
  EXPECT_THAT(std::string(stat.status().message()),
              ::testing::HasSubstr("reaching registry 127.0.0.1:5000"));
  EXPECT_EQ(transport_->requests().size(), 1u) << "no plain-HTTP attempt after a failed connect";
}

// What a caller reads to decide whether to try again (IsTransientTransportFailure)
// survives the context the client puts in front of the message: the probe's
// and the manifest fetch's wraps used to drop it.
absl::Status ManifestFetchFailing(std::string_view reference, http::TransportFailure failure,
                                  std::string_view message) {
  auto transport = std::make_shared<ScriptedTransport>();
  trainpkg::testing::FakeClock clock;
  RegistryClientOptions options;
  options.transport = transport;
  options.clock = &clock;
  options.retry.max_attempts = 1;
  RegistryClient client(options);
  transport->Push(
      http::MakeTransportError(failure, absl::StatusCode::kUnavailable, std::string(message)));
  return client.GetManifest(*ParseReference(reference)).status();
}

TEST(TransportFailureTest, SurvivesTheClientsContext) {
  struct Case {
    std::string reference;  // a loopback one is probed first, an https-only one is not
    http::TransportFailure failure;
    std::string message;
  };
  for (const Case& c : {Case{"127.0.0.1:5000/app:v1", http::TransportFailure::kConnect,
                             "reaching registry 127.0.0.1:5000: refused"},
                        Case{"reg.test/app:v1", http::TransportFailure::kReset,
                             "pulling manifest reg.test/app:v1: refused"}}) {
    absl::Status status = ManifestFetchFailing(c.reference, c.failure, "refused");
    EXPECT_THAT(status, StatusIs(absl::StatusCode::kUnavailable, HasSubstr(c.message)));
    EXPECT_EQ(http::TransportFailureOf(status), c.failure) << c.reference;
    EXPECT_TRUE(http::IsTransientTransportFailure(status)) << c.reference;
  }
}

}  // namespace
}  // namespace trainpkg::registry
