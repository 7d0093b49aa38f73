// Push and pull against a real docker-registry, with skopeo as an
// independent reader and a fault-injecting transport under the client.
#include <atomic>
#include <filesystem>
#include <random>

#include "base/environment.h"
#include "base/subprocess.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "http/curl_transport.h"
#include "nlohmann/json.hpp"
#include "registry/auth/docker_config.h"
#include "registry/image_puller.h"
#include "registry/image_pusher.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/layout.h"
#include "registry/registry_client.h"
#include "registry/registry_error.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::Each;
using ::testing::ElementsAre;
using ::testing::Field;
using ::testing::HasSubstr;
using testing::PseudoRandomBytes;
using testing::RegistryServer;
using testing::TestImage;
using testing::WriteTestImage;

// Under the retry layer, over libcurl: fails chosen requests the way a
// network does, against the real registry behind it.
class FaultTransport final : public http::HttpTransport {
 public:
  explicit FaultTransport(std::shared_ptr<http::HttpTransport> inner) : inner_(std::move(inner)) {}

  std::atomic<int> drop_patch_before{0};     // this PATCH (1-based) never reaches the registry
  std::atomic<int> drop_patch_after{0};      // this PATCH lands, its answer is lost
  std::atomic<uint64_t> cut_blob_get_at{0};  // the first blob GET is cut after this many bytes
  std::atomic<int> patches{0};
  std::atomic<int> ranged_gets{0};
  std::atomic<int> upload_posts{0};
  std::atomic<int> upload_deletes{0};
  std::atomic<int> mounts_201{0};

  absl::StatusOr<http::HttpResponse> Send(const http::HttpRequest& request) override {
    bool upload = request.url.find("/blobs/uploads/") != std::string::npos;
    if (request.method == "PATCH") {
      int n = ++patches;
      if (n == drop_patch_before) return Reset();
      if (n == drop_patch_after) {
        (void)inner_->Send(request);
        return Reset();
      }
    }
    if (request.method == "DELETE" && upload) ++upload_deletes;
    if (request.method == "GET" && request.headers.Get("Range").has_value()) ++ranged_gets;
    uint64_t cut = cut_blob_get_at.exchange(0);
    if (request.method == "GET" && request.url.find("/blobs/sha256") != std::string::npos &&
        cut > 0) {
      http::HttpRequest cutting = request;
      uint64_t seen = 0;
      cutting.response_sink = [&](std::string_view chunk) -> absl::Status {
        if (seen + chunk.size() > cut) {
          absl::Status partial = request.response_sink(chunk.substr(0, cut - seen));
          return partial.ok() ? absl::CancelledError("cut") : partial;
        }
        seen += chunk.size();
        return request.response_sink(chunk);
      };
      absl::StatusOr<http::HttpResponse> response = inner_->Send(cutting);
      if (!response.ok()) return Reset();
      return response;
    } else if (cut > 0) {
      cut_blob_get_at = cut;
    }
    absl::StatusOr<http::HttpResponse> response = inner_->Send(request);
    if (request.method == "POST" && upload) {
      if (request.url.find("mount=") != std::string::npos && response.ok() &&
          response->status == 201) {
        ++mounts_201;
      } else {
        ++upload_posts;
      }
    }
    return response;
  }

 private:
  static absl::Status Reset() {
    return http::MakeTransportError(http::TransportFailure::kReset, absl::StatusCode::kUnavailable,
                                    "connection reset by peer (injected)");
  }
  std::shared_ptr<http::HttpTransport> inner_;
};

class PushPullTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_THAT(server_.Start({.relative_urls = true}), IsOk());
    dir_ = server_.dir() / "work";
    fault_ = std::make_shared<FaultTransport>(http::MakeCurlTransport({}));
    RegistryClientOptions options;
    options.transport = fault_;
    options.retry.initial_backoff = absl::Milliseconds(5);
    client_ = std::make_unique<RegistryClient>(options);
  }

  oci::Layout NewLayout(const std::string& name) {
    auto layout = oci::Layout::Create(dir_ / name);
    EXPECT_THAT(layout, IsOk());
    return *layout;
  }

  Reference Ref(const std::string& text) {
    auto ref = ParseReference(server_.host() + "/" + text);
    EXPECT_THAT(ref, IsOk());
    return *ref;
  }

  static std::vector<BlobAction> Actions(const TransferResult& result) {
    std::vector<BlobAction> actions;
    for (const BlobReport& blob : result.blobs) actions.push_back(blob.action);
    return actions;
  }

  // skopeo, or a skip when it is absent.
  absl::StatusOr<base::SubprocessResult> Skopeo(std::vector<std::string> args) {
    auto exe = base::FindInPath("skopeo", "/usr/local/bin:/usr/bin:/bin");
    if (!exe) return absl::NotFoundError("skopeo is not installed");
    args.insert(args.begin(), exe->string());
    return base::RunSubprocess(args, "", absl::Seconds(30));
  }

  RegistryServer server_;
  std::filesystem::path dir_;
  std::shared_ptr<FaultTransport> fault_;
  std::unique_ptr<RegistryClient> client_;
};

TEST_F(PushPullTest, PushesRepushesMountsAndPullsBackByteIdentical) {
  oci::Layout src = NewLayout("src");
  auto image =
      WriteTestImage(src, "v1", {PseudoRandomBytes(300 * 1024, 1), PseudoRandomBytes(1000, 2)});
  ASSERT_THAT(image, IsOk());

  auto first = PushImage(*client_, src, "v1", Ref("team/app:v1"), {});
  ASSERT_THAT(first, IsOk());
  EXPECT_EQ(first->root.digest, image->manifest.digest);
  EXPECT_THAT(Actions(*first),
              ElementsAre(BlobAction::kPushed, BlobAction::kPushed, BlobAction::kPushed));

  auto again = PushImage(*client_, src, "v1", Ref("team/app:v1"), {});
  ASSERT_THAT(again, IsOk());
  EXPECT_THAT(Actions(*again), Each(BlobAction::kExists));

  int posts_before = fault_->upload_posts;
  PushOptions mount;
  mount.mount_sources = {Ref("team/app").repository};
  auto other = PushImage(*client_, src, "v1", Ref("other/app:v1"), mount);
  ASSERT_THAT(other, IsOk());
  EXPECT_THAT(Actions(*other), Each(BlobAction::kMounted));
  EXPECT_THAT(other->blobs, Each(Field(&BlobReport::source, "team/app")));
  EXPECT_EQ(fault_->mounts_201, 3);
  EXPECT_EQ(fault_->upload_posts, posts_before) << "no upload session was opened";

  oci::Layout dst = NewLayout("dst");
  auto pulled = PullImage(*client_, Ref("other/app:v1"), dst, "copy", {});
  ASSERT_THAT(pulled, IsOk());
  EXPECT_THAT(Actions(*pulled), Each(BlobAction::kPulled));
  for (const oci::Descriptor& blob :
       {image->manifest, image->config, image->layers[0], image->layers[1]}) {
    EXPECT_EQ(dst.ReadBlob(blob.digest).value_or("dst"), src.ReadBlob(blob.digest).value_or("src"))
        << blob.digest.ToString();
  }
  EXPECT_EQ(dst.Resolve("copy")->digest, image->manifest.digest);
  auto repull = PullImage(*client_, Ref("other/app:v1"), dst, "copy", {});
  ASSERT_THAT(repull, IsOk());
  EXPECT_THAT(Actions(*repull), Each(BlobAction::kExists));
}

TEST_F(PushPullTest, BlobLocationCacheMountsIntoAnotherRepository) {
  oci::Layout src = NewLayout("src");
  auto image = WriteTestImage(src, "v1", {PseudoRandomBytes(100 * 1024, 31)});
  ASSERT_THAT(image, IsOk());
  BlobLocations locations;
  PushOptions options;
  options.locations = &locations;
  auto first = PushImage(*client_, src, "v1", Ref("cache/one:v1"), options);
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(locations.Find(image->layers[0].digest, server_.host()),
              ElementsAre(Ref("cache/one").repository));

  int posts_before = fault_->upload_posts;
  auto second = PushImage(*client_, src, "v1", Ref("cache/two:v1"), options);
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT(Actions(*second), Each(BlobAction::kMounted));
  EXPECT_THAT(second->blobs, Each(Field(&BlobReport::source, "cache/one")));
  EXPECT_EQ(fault_->upload_posts, posts_before) << "nothing was uploaded";

  BlobLocations pulled_from;
  oci::Layout dst = NewLayout("dst");
  PullOptions pull;
  pull.locations = &pulled_from;
  ASSERT_THAT(PullImage(*client_, Ref("cache/two:v1"), dst, "v1", pull), IsOk());
  EXPECT_THAT(pulled_from.Find(image->config.digest, server_.host()),
              ElementsAre(Ref("cache/two").repository));

  // A stale entry (the blob is not in that repository) costs a refused
  // mount, then the upload.
  BlobLocations stale;
  stale.Record(image->layers[0].digest, Ref("cache/nothing-here").repository);
  oci::Layout fresh = NewLayout("fresh");
  auto other = WriteTestImage(fresh, "v1", {PseudoRandomBytes(10 * 1024, 32)});
  ASSERT_THAT(other, IsOk());
  stale.Record(other->layers[0].digest, Ref("cache/nothing-here").repository);
  options.locations = &stale;
  auto uploaded = PushImage(*client_, fresh, "v1", Ref("cache/three:v1"), options);
  ASSERT_THAT(uploaded, IsOk());
  EXPECT_THAT(Actions(*uploaded), Each(BlobAction::kPushed));
}

TEST_F(PushPullTest, SkopeoReadsAndCopiesWhatWePush) {
  oci::Layout src = NewLayout("src");
  auto image = WriteTestImage(src, "v1", {PseudoRandomBytes(64 * 1024, 3)});
  ASSERT_THAT(image, IsOk());
  ASSERT_THAT(PushImage(*client_, src, "v1", Ref("interop/app:v1"), {}), IsOk());
  std::string url = fmt::format("docker://{}/interop/app:v1", server_.host());
  auto inspect = Skopeo({"inspect", "--tls-verify=false", url});
  if (!inspect.ok()) GTEST_SKIP() << inspect.status();
  ASSERT_EQ(inspect->exit_code, 0) << inspect->err;
  nlohmann::json doc = nlohmann::json::parse(inspect->out);
  EXPECT_EQ(doc["Digest"], image->manifest.digest.ToString());
  EXPECT_EQ(doc["Architecture"], "amd64");
  std::string copied = (dir_ / "skopeo-copy").string();
  auto copy = Skopeo({"copy", "--src-tls-verify=false", url, "oci:" + copied + ":v1"});
  ASSERT_THAT(copy, IsOk());
  ASSERT_EQ(copy->exit_code, 0) << copy->err;
  auto layout = oci::Layout::Open(copied);
  ASSERT_THAT(layout, IsOk());
  auto tagged = layout->Resolve("v1");
  ASSERT_THAT(tagged, IsOk());
  // skopeo may recompress our uncompressed layer; the config travels as is.
  auto copied_image = layout->ReadImage("v1");
  ASSERT_THAT(copied_image, IsOk());
  EXPECT_EQ(copied_image->manifest.config.digest, image->config.digest);
  EXPECT_TRUE(copied_image->missing_blobs.empty());
}

TEST_F(PushPullTest, ChunkedUploadResumesAfterALostPatch) {
  oci::Layout src = NewLayout("src");
  std::string big = PseudoRandomBytes(3 * 1024 * 1024 + 123, 4);
  auto image = WriteTestImage(src, "v1", {big});
  ASSERT_THAT(image, IsOk());
  PushOptions chunked;
  chunked.upload.chunk_size = 256 * 1024;
  fault_->drop_patch_before = 3;  // never reached the registry: resume at its offset
  auto pushed = PushImage(*client_, src, "v1", Ref("chunky/app:v1"), chunked);
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(fault_->patches, 14) << "13 chunks and the one lost, none replayed blindly";
  std::string fetched;
  auto n = client_->FetchBlob(Ref("chunky/app").repository, image->layers[0].digest,
                              static_cast<uint64_t>(image->layers[0].size),
                              [&](std::string_view chunk) {
                                fetched.append(chunk);
                                return absl::OkStatus();
                              });
  ASSERT_THAT(n, IsOk());
  EXPECT_TRUE(fetched == big);
}

TEST_F(PushPullTest, ChunkedUploadStartsOverWhenTheSessionMovedOnUnseen) {
  oci::Layout src = NewLayout("src");
  auto image = WriteTestImage(src, "v1", {PseudoRandomBytes(2 * 1024 * 1024, 5)});
  ASSERT_THAT(image, IsOk());
  PushOptions chunked;
  chunked.upload.chunk_size = 512 * 1024;
  // The PATCH landed but its answer was lost: distribution then refuses
  // the stale session state, so the blob goes again in a new session.
  fault_->drop_patch_after = 2;
  auto pushed = PushImage(*client_, src, "v1", Ref("restart/app:v1"), chunked);
  ASSERT_THAT(pushed, IsOk());
  EXPECT_GE(fault_->upload_deletes, 1) << "the broken session was cancelled";
  auto manifest = client_->GetManifest(Ref("restart/app:v1"));
  ASSERT_THAT(manifest, IsOk());
  EXPECT_EQ(manifest->digest, image->manifest.digest);
}

TEST_F(PushPullTest, InterruptedDownloadResumesWithRange) {
  oci::Layout src = NewLayout("src");
  auto image = WriteTestImage(src, "v1", {PseudoRandomBytes(2 * 1024 * 1024, 6)});
  ASSERT_THAT(image, IsOk());
  ASSERT_THAT(PushImage(*client_, src, "v1", Ref("resume/app:v1"), {}), IsOk());
  fault_->cut_blob_get_at = 1024 * 1024;
  oci::Layout dst2 = NewLayout("dst2");
  PullOptions layer_only;
  layer_only.jobs = 1;
  // The config is there already, so the one blob GET is the layer's.
  ASSERT_THAT(dst2.WriteBlob(image->config, src.ReadBlob(image->config).value()), IsOk());
  auto pulled2 = PullImage(*client_, Ref("resume/app:v1"), dst2, "v1", layer_only);
  ASSERT_THAT(pulled2, IsOk());
  EXPECT_EQ(fault_->ranged_gets, 1) << "one resume from byte 1 MiB";
  EXPECT_EQ(pulled2->blobs[1].action, BlobAction::kPulled);
  EXPECT_TRUE(dst2.ReadBlob(image->layers[0]).value() == src.ReadBlob(image->layers[0]).value());
}

TEST_F(PushPullTest, IndexPullPicksThePlatform) {
  oci::Layout src = NewLayout("src");
  auto amd = WriteTestImage(src, "", {PseudoRandomBytes(4000, 7)}, "amd64");
  auto arm = WriteTestImage(src, "", {PseudoRandomBytes(5000, 8)}, "arm64");
  ASSERT_TRUE(amd.ok() && arm.ok());
  auto index =
      testing::WriteTestIndex(src, "multi", {{amd->manifest, "amd64"}, {arm->manifest, "arm64"}});
  ASSERT_THAT(index, IsOk());
  auto pushed = PushImage(*client_, src, "multi", Ref("multi/app:1"), {});
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(pushed->root.digest, index->digest);
  EXPECT_EQ(pushed->blobs.size(), 4u);

  oci::Layout dst = NewLayout("dst");
  auto by_default = PullImage(*client_, Ref("multi/app:1"), dst, "amd", {});
  ASSERT_THAT(by_default, IsOk());
  EXPECT_EQ(by_default->root.digest, amd->manifest.digest);
  PullOptions arm_options;
  arm_options.platform = *oci::ParsePlatform("linux/arm64");
  auto arm_pull = PullImage(*client_, Ref("multi/app:1"), dst, "arm", arm_options);
  ASSERT_THAT(arm_pull, IsOk());
  EXPECT_EQ(arm_pull->root.digest, arm->manifest.digest);
  EXPECT_TRUE(dst.HasBlob(arm->layers[0].digest));
  PullOptions s390x;
  s390x.platform = *oci::ParsePlatform("linux/s390x");
  auto none = PullImage(*client_, Ref("multi/app:1"), dst, "x", s390x);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(none.status().message()), HasSubstr("linux/arm64"));
}

TEST_F(PushPullTest, AbsentBaseLayersAreMountedFromTheBaseNeverDownloaded) {
  oci::Layout base_layout = NewLayout("base");
  std::string base_layer = PseudoRandomBytes(100 * 1024, 9);
  ASSERT_THAT(WriteTestImage(base_layout, "1", {base_layer}), IsOk());
  ASSERT_THAT(PushImage(*client_, base_layout, "1", Ref("lib/base:1"), {}), IsOk());

  oci::Layout app = NewLayout("app");
  oci::Annotations annotations{
      {std::string(oci::annotations::kBaseName), server_.host() + "/lib/base:1"}};
  auto image = WriteTestImage(app, "v1", {base_layer, PseudoRandomBytes(2000, 10)}, "amd64",
                              annotations, /*omit=*/{0});
  ASSERT_THAT(image, IsOk());
  ASSERT_FALSE(app.HasBlob(image->layers[0].digest));
  auto pushed = PushImage(*client_, app, "v1", Ref("team/app:v1"), {});
  ASSERT_THAT(pushed, IsOk());
  EXPECT_EQ(pushed->blobs[1].action, BlobAction::kMounted);
  EXPECT_EQ(pushed->blobs[1].source, "lib/base");
  EXPECT_EQ(pushed->blobs[2].action, BlobAction::kPushed);

  // Where the base is not on the registry, the push fails before any manifest.
  oci::Layout orphan = NewLayout("orphan");
  oci::Annotations elsewhere{
      {std::string(oci::annotations::kBaseName), server_.host() + "/lib/missing:1"}};
  ASSERT_TRUE(
      WriteTestImage(orphan, "v1", {PseudoRandomBytes(3000, 11)}, "amd64", elsewhere, {0}).ok());
  int deletes = fault_->upload_deletes;
  auto failed = PushImage(*client_, orphan, "v1", Ref("orphan/app:v1"), {});
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("could not be mounted"));
  EXPECT_EQ(fault_->upload_deletes, deletes + 1) << "the 202 session was cancelled";
  EXPECT_EQ(client_->GetManifest(Ref("orphan/app:v1")).status().code(),
            absl::StatusCode::kNotFound);
}

TEST(HtpasswdPushTest, PushesWithTheKeychainsCredentials) {
  RegistryServer server;
  ASSERT_THAT(server.Start({.htpasswd_user = "tester", .htpasswd_password = "s3cret"}), IsOk());
  base::MapEnvironment env;
  env.Set("DOCKER_CONFIG", (server.dir() / "docker").string());
  ASSERT_THAT(SaveLogin(env, server.host(), {.username = "tester", .password = "s3cret"}), IsOk());
  RegistryClientOptions options;
  options.keychain = std::make_shared<DockerKeychain>(env);
  RegistryClient client(options);
  auto layout = oci::Layout::Create(server.dir() / "src");
  ASSERT_THAT(layout, IsOk());
  auto image = WriteTestImage(*layout, "v1", {PseudoRandomBytes(5000, 12)});
  ASSERT_THAT(image, IsOk());
  auto ref = ParseReference(server.host() + "/secure/app:v1");
  auto pushed = PushImage(client, *layout, "v1", *ref, {});
  ASSERT_THAT(pushed, IsOk());
  RegistryClient anonymous(RegistryClientOptions{});
  auto denied = PushImage(anonymous, *layout, "v1", *ref, {});
  EXPECT_EQ(denied.status().code(), absl::StatusCode::kUnauthenticated);
}

}  // namespace
}  // namespace trainpkg::registry
