// The upload state machine against a scripted registry that, unlike
// distribution 2.8, enforces Content-Range (416 on a wrong offset) so that
// any blind replay into a session would show.
#include "registry/blob_upload.h"

#include <filesystem>
#include <fstream>
#include <map>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/digest_builder.h"
#include "tests/http/scripted_transport.h"
#include "tests/test_util/fake_clock.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using http::testing::RecordedRequest;
using http::testing::Response;
using http::testing::ScriptedTransport;

constexpr char kBase[] = "https://reg.test";

// A registry holding one upload session at a time. `fail` decides, per
// PATCH number (1-based), whether to drop the request before it lands
// ("before"), after it landed ("after"), or to answer 416.
class FakeRegistry {
 public:
  std::map<int, std::string> fail;
  bool lose_session_on_status = false;
  std::string stored;   // the committed blob
  std::string session;  // bytes of the open session
  int generation = 0;   // bumps with every Location (like distribution's _state)
  int sessions_started = 0;
  int cancels = 0;
  int patches = 0;
  std::vector<std::string> content_ranges;
  std::vector<std::string> methods;

  absl::StatusOr<http::HttpResponse> Handle(const RecordedRequest& r) {
    methods.push_back(r.method);
    if (r.method == "GET" && r.url == std::string(kBase) + "/v2/") return Response(200);
    if (r.method == "HEAD") return Response(stored.empty() ? 404 : 200);
    if (r.method == "POST") {
      ++sessions_started;
      session.clear();
      return Location(202);
    }
    if (r.method == "DELETE") {
      ++cancels;
      return Response(204);
    }
    if (!r.url.starts_with(CurrentLocation())) {
      return Response(404, R"({"errors":[{"code":"BLOB_UPLOAD_INVALID","message":"stale"}]})");
    }
    if (r.method == "PATCH") {
      ++patches;
      std::string range = r.headers.Get("Content-Range").value_or("");
      content_ranges.push_back(range);
      std::string mode = fail.contains(patches) ? fail[patches] : "";
      if (mode == "before") return Reset();
      if (mode == "416" || range.substr(0, range.find('-')) != std::to_string(session.size())) {
        return Response(416, R"({"errors":[{"code":"BLOB_UPLOAD_INVALID","message":"range"}]})");
      }
      session += r.body;
      if (mode == "after") {
        ++generation;  // the registry moved on; the client never hears of it
        return Reset();
      }
      return Location(202);
    }
    if (r.method == "GET") {
      if (lose_session_on_status) {
        return Response(404, R"({"errors":[{"code":"BLOB_UPLOAD_UNKNOWN","message":"gone"}]})");
      }
      return Location(204);
    }
    if (r.method == "PUT") {
      session += r.body;
      oci::Digest digest = oci::Sha256Digest(session);
      if (r.url.find("digest=sha256%3A" + digest.hex()) == std::string::npos) {
        return Response(400, R"({"errors":[{"code":"DIGEST_INVALID","message":"bad"}]})");
      }
      stored = session;
      return Response(201, "", {{"Docker-Content-Digest", digest.ToString()}});
    }
    return Response(405);
  }

 private:
  std::string CurrentLocation() const {
    return fmt::format("{}/v2/app/blobs/uploads/u?state={}", kBase, generation);
  }
  http::HttpResponse Location(int status) {
    ++generation;
    // Relative, as GHCR and Artifact Registry send them.
    std::string range = session.empty() ? "0-0" : fmt::format("0-{}", session.size() - 1);
    return Response(status, "",
                    {{"Location", fmt::format("/v2/app/blobs/uploads/u?state={}", generation)},
                     {"Range", range}});
  }
  static absl::Status Reset() {
    return http::MakeTransportError(http::TransportFailure::kReset, absl::StatusCode::kUnavailable,
                                    "connection reset by peer (injected)");
  }
};

class BlobUploadTest : public ::testing::Test {
 protected:
  void SetUp() override {
    content_ = std::string(10 * 1024 + 7, '\0');
    for (size_t i = 0; i < content_.size(); ++i) content_[i] = static_cast<char>(i * 31 + 7);
    file_ = dir_ / "upload.blob";
    std::ofstream(file_, std::ios::binary) << content_;
    blob_.media_type = "application/octet-stream";
    blob_.digest = oci::Sha256Digest(content_);
    blob_.size = static_cast<int64_t>(content_.size());
    transport_->SetHandler([this](const RecordedRequest& r) { return registry_.Handle(r); });
  }

  absl::Status Upload(uint64_t chunk) {
    RegistryClientOptions options;
    options.transport = transport_;
    options.clock = &clock_;
    options.insecure_registries = {"reg.test"};
    RegistryClient client(options);
    UploadOptions upload;
    upload.chunk_size = chunk;
    return UploadBlob(client, {"reg.test", "app"}, blob_, file_, std::nullopt, upload,
                      [this](uint64_t done) { progress_.push_back(done); });
  }

  std::string content_;
  ::trainpkg::testing::TempDir dir_;
  std::filesystem::path file_;
  oci::Descriptor blob_;
  FakeRegistry registry_;
  std::shared_ptr<ScriptedTransport> transport_ = std::make_shared<ScriptedTransport>();
  trainpkg::testing::FakeClock clock_;
  std::vector<uint64_t> progress_;
};

TEST_F(BlobUploadTest, ChunksCarryConsecutiveContentRanges) {
  {
    absl::Status s = Upload(4096);
    ASSERT_THAT(s, IsOk());
  }
  EXPECT_TRUE(registry_.stored == content_);
  EXPECT_THAT(registry_.content_ranges,
              ::testing::ElementsAre("0-4095", "4096-8191", "8192-10246"));
  EXPECT_EQ(progress_.back(), content_.size());
}

TEST_F(BlobUploadTest, SmallBlobsAndZeroChunkSizeGoMonolithic) {
  {
    absl::Status s = Upload(0);
    ASSERT_THAT(s, IsOk());
  }
  EXPECT_TRUE(registry_.stored == content_);
  EXPECT_EQ(registry_.patches, 0);
}

TEST_F(BlobUploadTest, AFailedPatchResumesFromTheOffsetTheRegistryReports) {
  registry_.fail[2] = "before";
  {
    absl::Status s = Upload(4096);
    ASSERT_THAT(s, IsOk());
  }
  EXPECT_TRUE(registry_.stored == content_);
  // The lost chunk is sent again only after asking: same range, no 416.
  EXPECT_THAT(registry_.content_ranges,
              ::testing::ElementsAre("0-4095", "4096-8191", "4096-8191", "8192-10246"));
  EXPECT_EQ(registry_.sessions_started, 1);
}

TEST_F(BlobUploadTest, A416IsAnsweredByAskingNotByReplaying) {
  registry_.fail[1] = "416";
  {
    absl::Status s = Upload(4096);
    ASSERT_THAT(s, IsOk());
  }
  EXPECT_TRUE(registry_.stored == content_);
  EXPECT_THAT(registry_.methods, ::testing::Contains("GET").Times(2));  // probe + status
}

TEST_F(BlobUploadTest, ALostSessionIsCancelledAndTheUploadStartsOver) {
  registry_.fail[2] = "after";  // landed, but the new Location never arrived
  {
    absl::Status s = Upload(4096);
    ASSERT_THAT(s, IsOk());
  }
  EXPECT_TRUE(registry_.stored == content_);
  EXPECT_EQ(registry_.sessions_started, 2);
  EXPECT_EQ(registry_.cancels, 1);
}

TEST_F(BlobUploadTest, GivesUpAfterTheRestartBudgetWithTheRegistrysError) {
  for (int i = 1; i <= 20; ++i) registry_.fail[i] = "after";
  absl::Status status = Upload(4096);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("BLOB_UPLOAD_INVALID"));
  EXPECT_EQ(registry_.sessions_started, 3);
  EXPECT_EQ(registry_.cancels, 3);
  EXPECT_TRUE(registry_.stored.empty());
}

}  // namespace
}  // namespace trainpkg::registry
