// Issue 16 findings 8 and 9: a registry that names other origins in its
// upload Location, redirects and Link headers must never get our
// credentials sent there; one that sends more than a blob's descriptor
// names, or endless JSON, is stopped with a clear error and bounded memory.
// Two cpp-httplib listeners on 127.0.0.1: `registry_` (Basic auth) and
// `elsewhere_` (another port: another origin), which records every
// Authorization header it is sent.
#include <httplib.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/escaping.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/auth/credential.h"
#include "registry/image_puller.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/media_types.h"
#include "registry/registry_client.h"
#include "tests/test_util/file.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMaxRssKib = 256 * 1024;
// The most a child running an attack may map: a client that keeps what an
// endless body sends fails there (SIGABRT) instead of exhausting the machine.
constexpr int64_t kChildAddressSpace = int64_t{2} << 30;
// What a hostile registry sends for a blob whose descriptor names 1 KiB.
constexpr size_t kOversizedBlobBytes = 64 << 20;

class Listener {
 public:
  ~Listener() {
    server.stop();
    if (thread_.joinable()) thread_.join();
  }
  void Start() {
    port_ = server.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server.listen_after_bind(); });
    while (!server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  std::string host() const { return fmt::format("127.0.0.1:{}", port_); }

  httplib::Server server;

 private:
  int port_ = 0;
  std::thread thread_;
};

class HostileRegistryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    registry_.server.set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response& res) {
          if (req.get_header_value("Authorization") == "Basic " + absl::Base64Escape("alice:pw")) {
            return httplib::Server::HandlerResponse::Unhandled;
          }
          res.status = 401;
          res.set_header("WWW-Authenticate", "Basic realm=\"registry\"");
          res.set_content(R"({"errors":[{"code":"UNAUTHORIZED","message":"log in"}]})",
                          "application/json");
          return httplib::Server::HandlerResponse::Handled;
        });
    registry_.server.Get("/v2/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content("{}", "application/json");
    });
    elsewhere_.server.set_pre_routing_handler(
        [this](const httplib::Request& req, httplib::Response&) {
          std::lock_guard<std::mutex> lock(mu_);
          seen_elsewhere_.push_back(req.method + " " + req.path + " Authorization: " +
                                    req.get_header_value("Authorization"));
          authorization_elsewhere_ += req.has_header("Authorization");
          return httplib::Server::HandlerResponse::Unhandled;
        });
    registry_.Start();
    elsewhere_.Start();
  }

  RegistryClient Client() {
    RegistryClientOptions options;
    options.keychain =
        std::make_shared<StaticKeychain>(Credential{.username = "alice", .password = "pw"});
    options.retry.max_attempts = 1;
    options.curl.certs_dir = "";
    return RegistryClient(std::move(options));
  }
  Repository Repo() const { return Repository{registry_.host(), "app"}; }

  // Serves the blob `digest` of app as kOversizedBlobBytes of 'x', counting
  // in `served` the bytes handed to the connection.
  void ServeOversizedBlob(const oci::Digest& digest, std::atomic<uint64_t>* served) {
    registry_.server.Get("/v2/app/blobs/" + digest.ToString(),
                         [served](const httplib::Request&, httplib::Response& res) {
                           res.set_content_provider(
                               kOversizedBlobBytes, "application/octet-stream",
                               [served](size_t, size_t length, httplib::DataSink& sink) {
                                 static const std::string chunk(1 << 16, 'x');
                                 size_t n = std::min(length, chunk.size());
                                 *served += n;
                                 return sink.write(chunk.data(), n);
                               });
                         });
  }

  int AuthorizationElsewhere() {
    std::lock_guard<std::mutex> lock(mu_);
    return authorization_elsewhere_;
  }
  std::string SeenElsewhere() {
    std::lock_guard<std::mutex> lock(mu_);
    std::string out;
    for (const std::string& line : seen_elsewhere_) out += line + "\n";
    return out;
  }

  Listener registry_;
  Listener elsewhere_;
  std::mutex mu_;
  std::vector<std::string> seen_elsewhere_;
  int authorization_elsewhere_ = 0;
};

// Finding 8: an upload Location on another origin gets no credentials, and
// its 401 is not answered with them: the push ends with a clear error.
TEST_F(HostileRegistryTest, UploadLocationOnAnotherOriginNeverGetsCredentials) {
  registry_.server.Post("/v2/app/blobs/uploads/", [&](const httplib::Request&,
                                                      httplib::Response& res) {
    res.status = 202;
    res.set_header("Location", fmt::format("http://{}/v2/app/blobs/uploads/1?_state=s",
                                           elsewhere_.host()));
  });
  elsewhere_.server.Put(".*", [](const httplib::Request&, httplib::Response& res) {
    res.status = 401;
    res.set_header("WWW-Authenticate", "Basic realm=\"gimme\"");
    res.set_content(R"({"errors":[{"code":"UNAUTHORIZED","message":"send credentials"}]})",
                    "application/json");
  });
  const oci::Digest digest = oci::Sha256Digest("layer");
  trainpkg::testing::ChildRun run = trainpkg::testing::RunInChildMeasured([&] {
    RegistryClient client = Client();
    http::StringBodySource body("layer");
    absl::Status pushed = client.PushBlob(Repo(), digest, body);
    std::fprintf(stderr, "%s\n", pushed.ToString().c_str());
    return !pushed.ok() && pushed.code() == absl::StatusCode::kUnauthenticated &&
                   std::string(pushed.message()).find("pushing blob") != std::string::npos
               ? 0
               : 11;
  });
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_LE(run.peak_rss_kib, kMaxRssKib);
  EXPECT_THAT(SeenElsewhere(), HasSubstr("PUT /v2/app/blobs/uploads/1"));
  EXPECT_EQ(AuthorizationElsewhere(), 0) << SeenElsewhere();
}

// Finding 8: a blob GET redirected to storage on another origin and a tag
// list whose Link names another origin are followed without credentials.
TEST_F(HostileRegistryTest, RedirectsAndLinksToAnotherOriginAreFollowedWithoutCredentials) {
  const std::string blob = "blob bytes";
  const oci::Digest digest = oci::Sha256Digest(blob);
  registry_.server.Get("/v2/app/blobs/" + digest.ToString(),
                       [&](const httplib::Request&, httplib::Response& res) {
                         res.status = 307;
                         res.set_header("Location",
                                        fmt::format("http://{}/storage/blob", elsewhere_.host()));
                       });
  elsewhere_.server.Get("/storage/blob", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(blob, "application/octet-stream");
  });
  registry_.server.Get("/v2/app/tags/list", [&](const httplib::Request&, httplib::Response& res) {
    res.set_header("Link", fmt::format("<http://{}/v2/app/tags/list?last=a>; rel=\"next\"",
                                       elsewhere_.host()));
    res.set_content(R"({"name":"app","tags":["a"]})", "application/json");
  });
  elsewhere_.server.Get("/v2/app/tags/list", [](const httplib::Request&, httplib::Response& res) {
    res.set_content(R"({"name":"app","tags":["b"]})", "application/json");
  });
  RegistryClient client = Client();
  std::string fetched;
  absl::StatusOr<uint64_t> n = client.FetchBlob(Repo(), digest, blob.size(), [&](std::string_view c) {
    fetched.append(c);
    return absl::OkStatus();
  });
  ASSERT_THAT(n, IsOk());
  EXPECT_EQ(fetched, blob);
  absl::StatusOr<std::vector<std::string>> tags = client.ListTags(Repo());
  ASSERT_THAT(tags, IsOk());
  EXPECT_THAT(*tags, ::testing::ElementsAre("a", "b"));
  EXPECT_THAT(SeenElsewhere(), HasSubstr("GET /storage/blob"));
  EXPECT_THAT(SeenElsewhere(), HasSubstr("GET /v2/app/tags/list"));
  EXPECT_EQ(AuthorizationElsewhere(), 0) << SeenElsewhere();
}

// Finding 9: a 1 KiB descriptor whose blob streams 64 MiB is cut off at the
// first byte too many; nothing is left in the layout.
TEST_F(HostileRegistryTest, OversizedBlobStopsAtItsDescriptorSizeAndLeavesNothing) {
  oci::ImageConfig config;
  config.architecture = "amd64";
  config.os = "linux";
  const std::string config_bytes = oci::SerializeImageConfig(config);
  oci::ImageManifest manifest;
  manifest.config.media_type = oci::media_types::kOciImageConfig;
  manifest.config.digest = oci::Sha256Digest(config_bytes);
  manifest.config.size = static_cast<int64_t>(config_bytes.size());
  oci::Descriptor layer;
  layer.media_type = oci::media_types::kOciLayerGzip;
  layer.digest = oci::Sha256Digest(std::string(1024, 'x'));
  layer.size = 1024;
  manifest.layers.push_back(layer);
  const std::string manifest_bytes = oci::SerializeImageManifest(manifest);
  registry_.server.Get("/v2/app/manifests/v1", [&](const httplib::Request&, httplib::Response& res) {
    res.set_content(manifest_bytes, std::string(oci::media_types::kOciImageManifest));
  });
  registry_.server.Get("/v2/app/blobs/" + manifest.config.digest.ToString(),
                       [&](const httplib::Request&, httplib::Response& res) {
                         res.set_content(config_bytes, "application/octet-stream");
                       });
  std::atomic<uint64_t> served{0};
  ServeOversizedBlob(layer.digest, &served);
  trainpkg::testing::TempDir dir;
  trainpkg::testing::ChildRun run = trainpkg::testing::RunInChildMeasured([&] {
    absl::StatusOr<oci::Layout> layout = oci::Layout::Create(dir / "layout");
    if (!layout.ok()) return 12;
    RegistryClient client = Client();
    absl::StatusOr<TransferResult> pulled =
        PullImage(client, Reference{Repo(), "v1", {}}, *layout, "v1", PullOptions{});
    std::fprintf(stderr, "%s\n", pulled.status().ToString().c_str());
    std::string message(pulled.status().message());
    return !pulled.ok() && pulled.status().code() == absl::StatusCode::kDataLoss &&
                   message.find("more than the 1024 bytes its descriptor names") !=
                       std::string::npos &&
                   message.find(layer.digest.ToString()) != std::string::npos
               ? 0
               : 11;
  });
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_LE(run.peak_rss_kib, kMaxRssKib);
  EXPECT_LT(served.load(), uint64_t{16} << 20) << "the download went on";
  for (const auto& entry : std::filesystem::directory_iterator(dir / "layout/blobs/sha256")) {
    EXPECT_NE(entry.path().filename().string(), layer.digest.hex());
    EXPECT_LE(entry.file_size(), config_bytes.size()) << entry.path() << " was left behind";
  }
}

// Finding 9, FetchBlob (how the builder reads a base image's config and
// layers): the same cut at the descriptor's size, before the sink gets a
// byte too many.
TEST_F(HostileRegistryTest, FetchBlobStopsAtItsDescriptorSize) {
  const oci::Digest digest = oci::Sha256Digest(std::string(1024, 'x'));
  std::atomic<uint64_t> served{0};
  ServeOversizedBlob(digest, &served);
  uint64_t to_sink = 0;
  RegistryClient client = Client();
  absl::StatusOr<uint64_t> fetched =
      client.FetchBlob(Repo(), digest, 1024, [&](std::string_view chunk) {
        to_sink += chunk.size();
        return absl::OkStatus();
      });
  EXPECT_EQ(fetched.status().code(), absl::StatusCode::kDataLoss) << fetched.status();
  EXPECT_THAT(std::string(fetched.status().message()),
              HasSubstr("pulling blob " + digest.ToString() +
                        " from " + Repo().Name() +
                        ": the registry sent more than the 1024 bytes its descriptor names"));
  EXPECT_LE(to_sink, 1024u);
  EXPECT_LT(served.load(), uint64_t{16} << 20) << "the download went on";
}

// Finding 9: JSON answers (here a tag list) are capped at 4 MiB, however
// much the registry sends; error bodies are read only so far.
TEST_F(HostileRegistryTest, EndlessJsonAndErrorBodiesEndWithAClearErrorAndBoundedMemory) {
  registry_.server.Get("/v2/app/tags/list", [](const httplib::Request&, httplib::Response& res) {
    res.set_content_provider("application/json",
                             [](size_t, httplib::DataSink& sink) {
                               static const std::string chunk(1 << 16, ' ');
                               return sink.write(chunk.data(), chunk.size());
                             });
  });
  registry_.server.Get("/v2/app/manifests/broken", [](const httplib::Request&,
                                                      httplib::Response& res) {
    res.status = 500;
    res.set_content_provider("application/json", [](size_t, httplib::DataSink& sink) {
      static const std::string chunk(1 << 16, ' ');
      return sink.write(chunk.data(), chunk.size());
    });
  });
  trainpkg::testing::ChildRun run = trainpkg::testing::RunInChildMeasured([&] {
    ::alarm(60);
    RegistryClient client = Client();
    absl::StatusOr<std::vector<std::string>> tags = client.ListTags(Repo());
    std::fprintf(stderr, "%s\n", tags.status().ToString().c_str());
    if (tags.ok() || tags.status().code() != absl::StatusCode::kResourceExhausted ||
        std::string(tags.status().message()).find(std::to_string(http::kMaxJsonBodyBytes)) ==
            std::string::npos) {
      return 11;
    }
    absl::StatusOr<ManifestBlob> manifest = client.GetManifest(Reference{Repo(), "broken", {}});
    std::fprintf(stderr, "%s\n", manifest.status().ToString().c_str());
    return !manifest.ok() && std::string(manifest.status().message()).find("500") !=
                                 std::string::npos
               ? 0
               : 12;
  }, kChildAddressSpace);
  EXPECT_EQ(run.exit_code, 0) << "signal " << run.signal;
  EXPECT_LE(run.peak_rss_kib, kMaxRssKib);
}

}  // namespace
}  // namespace trainpkg::registry
