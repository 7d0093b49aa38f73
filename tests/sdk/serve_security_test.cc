// `trainpkg serve` lets no one in (issue #16, findings 1 and 2): the attack
// a web page can make while serve runs (a cross-origin text/plain POST, or a
// DNS-rebinding Host, creating a job that runs `local:/bin/sh -c ...`) is
// refused and runs nothing; without the token nothing is accepted; local:
// executables and pulls from registries need flags; bodies are bounded,
// never inflated, must be JSON; idle connections do not starve the service;
// running jobs are capped. Each serve is the built binary on a free port.
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/time/clock.h"
#include "base/file_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "nlohmann/json.hpp"
#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/serve_process.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using testing::Curl;
using ::testing::HasSubstr;
using testing::HttpReply;
using testing::MakeJob;
using testing::ServeProcess;
using testing::StartServe;
using testing::StopServe;
using testing::TempDir;
using testing::WaitFor;

constexpr char kJobs[] = "/v1/projects/p/locations/l/customJobs";

std::string ErrorStatus(const HttpReply& reply) {
  nlohmann::json body = nlohmann::json::parse(reply.body, nullptr, false);
  if (!body.is_object() || !body.contains("error")) return "not a google.rpc.Status: " + reply.body;
  return body["error"].value("status", "") + " " + std::to_string(body["error"].value("code", 0)) +
         " " + body["error"].value("message", "");
}

class ServeSecurityTest : public ::testing::Test {
 protected:
  void SetUp() override {
    marker_ = dir_.path() / "marker";
    // What the attacker's page sends: a job running /bin/sh -c "touch <marker>".
    WriteBody("attack.json", jobspec::CustomJobToJson(
                                 MakeJob("/bin/sh", {{1, {"-c", "touch " + marker_.string()}}}))
                                 .dump());
  }

  void TearDown() override {
    for (ServeProcess& serve : serves_) {
      EXPECT_EQ(StopServe(serve), 0) << base::ReadFile(serve.out).value_or("");
    }
  }

  ServeProcess& Start(const std::vector<std::string>& args) {
    const std::string name = "serve" + std::to_string(serves_.size());
    absl::StatusOr<ServeProcess> serve = StartServe(TRAINPKG_PATH, dir_.path() / (name + "-home"),
                                                    dir_.path() / (name + ".out"), args);
    EXPECT_THAT(serve, IsOk());
    serves_.push_back(serve.ok() ? *std::move(serve) : ServeProcess{});
    return serves_.back();
  }

  // Writes `body` to a file in the test directory; returns curl's
  // "--data-binary @FILE".
  std::string WriteBody(const std::string& name, const std::string& body) {
    const std::filesystem::path path = dir_.path() / name;
    std::ofstream(path, std::ios::binary) << body;
    return "--data-binary @" + path.string() + " ";
  }
  std::string Attack() const {
    return "--data-binary @" + (dir_.path() / "attack.json").string() + " ";
  }

  static std::string Token(const ServeProcess& serve) {
    return "-H 'Authorization: Bearer " + serve.token + "' ";
  }
  static std::string Json() { return "-H 'Content-Type: application/json' "; }
  static std::string Url(const ServeProcess& serve, const std::string& path = kJobs) {
    return "'" + serve.endpoint + path + "'";
  }

  // The marker the attack would create is absent, and serve recorded no job.
  void ExpectNothingRan(const ServeProcess& serve) {
    absl::SleepFor(absl::Milliseconds(500));
    EXPECT_FALSE(std::filesystem::exists(marker_)) << "the refused command ran";
    const std::filesystem::path jobs = serve.home / "jobs";
    EXPECT_TRUE(!std::filesystem::exists(jobs) || std::filesystem::is_empty(jobs))
        << "serve created a job";
  }

  TempDir dir_;
  std::filesystem::path marker_;
  std::deque<ServeProcess> serves_;  // references to them stay valid
};

TEST_F(ServeSecurityTest, CrossOriginRebindingAndTokenlessAttacksRunNothing) {
  ServeProcess& serve = Start({"--allow-local-executables"});
  // A page on another origin: a "simple" text/plain POST needs no preflight.
  HttpReply cross_origin = Curl(
      "-X POST -H 'Origin: http://evil.example' "
      "-H 'Content-Type: text/plain' " +
      Attack() + Url(serve));
  EXPECT_EQ(cross_origin.status, 403) << cross_origin.body;
  EXPECT_THAT(ErrorStatus(cross_origin), HasSubstr("PERMISSION_DENIED 403"));
  EXPECT_THAT(ErrorStatus(cross_origin), HasSubstr("Origin"));
  // DNS rebinding: evil.example now resolves to 127.0.0.1, so the page is
  // same-origin and the Host header names the attacker's domain.
  HttpReply rebinding = Curl("-X POST -H 'Host: evil.example:" + std::to_string(serve.port) +
                             "' -H 'Content-Type: text/plain' " + Attack() + Url(serve));
  EXPECT_EQ(rebinding.status, 403) << rebinding.body;
  EXPECT_THAT(ErrorStatus(rebinding), HasSubstr("DNS rebinding"));
  // Any caller without the token, even with a proper request.
  HttpReply no_token = Curl("-X POST " + Json() + Attack() + Url(serve));
  EXPECT_EQ(no_token.status, 401) << no_token.body;
  EXPECT_THAT(ErrorStatus(no_token), HasSubstr("UNAUTHENTICATED 401"));
  HttpReply wrong_token = Curl("-X POST -H 'Authorization: Bearer " + std::string(43, 'A') + "' " +
                               Json() + Attack() + Url(serve));
  EXPECT_EQ(wrong_token.status, 401) << wrong_token.body;
  // The token is never taken from the query string.
  HttpReply query_token =
      Curl("-X POST " + Json() + Attack() +
           Url(serve, std::string(kJobs) + "?access_token=" + serve.token + "&key=" + serve.token));
  EXPECT_EQ(query_token.status, 401) << query_token.body;
  // Nor do reads work without it.
  EXPECT_EQ(Curl(Url(serve)).status, 401);
  ExpectNothingRan(serve);
}

TEST_F(ServeSecurityTest, TheSameJobWithTheTokenAndTheFlagRuns) {
  ServeProcess& serve = Start({"--allow-local-executables"});
  HttpReply created = Curl("-X POST " + Token(serve) + Json() + Attack() + Url(serve));
  EXPECT_EQ(created.status, 200) << created.body;
  EXPECT_TRUE(WaitFor([&] { return std::filesystem::exists(marker_); }, absl::Seconds(10)));
  // Host spellings of the same loopback address, and the server's own origin.
  for (const char* host : {"localhost", "LOCALHOST", "[::1]"}) {
    HttpReply listed = Curl(Token(serve) + "-H 'Host: " + host + ":" + std::to_string(serve.port) +
                            "' " + Url(serve));
    EXPECT_EQ(listed.status, 200) << host << ": " << listed.body;
  }
  HttpReply same_origin = Curl(Token(serve) + "-H 'Origin: " + serve.endpoint + "' " + Url(serve));
  EXPECT_EQ(same_origin.status, 200) << same_origin.body;
}

TEST_F(ServeSecurityTest, LocalExecutablesAndUnseenRegistriesNeedAFlag) {
  ServeProcess& serve = Start({});
  HttpReply local = Curl("-X POST " + Token(serve) + Json() + Attack() + Url(serve));
  EXPECT_EQ(local.status, 403) << local.body;
  EXPECT_THAT(ErrorStatus(local), HasSubstr("jobSpec.workerPoolSpecs[0].containerSpec.imageUri"));
  EXPECT_THAT(ErrorStatus(local), HasSubstr("--allow-local-executables"));
  nlohmann::json body = nlohmann::json::parse(local.body);
  EXPECT_EQ(body["error"]["details"][0]["fieldViolations"][0]["field"],
            "jobSpec.workerPoolSpecs[0].containerSpec.imageUri");

  // An image not in serve's store would be pulled: only from allowed registries.
  jobspec::CustomJob pulled = MakeJob("/bin/sh", {{1, {}}, {1, {}}});
  pulled.job_spec.worker_pool_specs[1].container_spec->image_uri = "127.0.0.1:9/evil/image:1";
  pulled.job_spec.worker_pool_specs[0].container_spec->image_uri = "127.0.0.1:9/evil/image:1";
  HttpReply registry =
      Curl("-X POST " + Token(serve) + Json() +
           WriteBody("pull.json", jobspec::CustomJobToJson(pulled).dump()) + Url(serve));
  EXPECT_EQ(registry.status, 403) << registry.body;
  EXPECT_THAT(ErrorStatus(registry), HasSubstr("--allow-registry 127.0.0.1:9"));
  // A pythonPackageSpec's packages are host files and its executor would be
  // pulled: each needs its flag.
  jobspec::CustomJob python;
  python.display_name = "python";
  jobspec::WorkerPoolSpec& pool = python.job_spec.worker_pool_specs.emplace_back();
  pool.replica_count = 1;
  pool.machine_spec.emplace().machine_type = "n1-standard-4";
  pool.python_package_spec.emplace();
  pool.python_package_spec->executor_image_uri = "127.0.0.1:9/evil/python:3";
  pool.python_package_spec->python_module = "trainer.task";
  pool.python_package_spec->package_uris = {"/etc/shadow.tar.gz"};
  HttpReply packages =
      Curl("-X POST " + Token(serve) + Json() +
           WriteBody("python.json", jobspec::CustomJobToJson(python).dump()) + Url(serve));
  EXPECT_EQ(packages.status, 403) << packages.body;
  EXPECT_THAT(ErrorStatus(packages),
              HasSubstr("jobSpec.workerPoolSpecs[0].pythonPackageSpec.packageUris"));
  EXPECT_THAT(ErrorStatus(packages), HasSubstr("--allow-local-executables"));
  pool.python_package_spec->package_uris.clear();
  HttpReply executor =
      Curl("-X POST " + Token(serve) + Json() +
           WriteBody("executor.json", jobspec::CustomJobToJson(python).dump()) + Url(serve));
  EXPECT_EQ(executor.status, 403) << executor.body;
  EXPECT_THAT(ErrorStatus(executor),
              HasSubstr("jobSpec.workerPoolSpecs[0].pythonPackageSpec.executorImageUri"));
  EXPECT_THAT(ErrorStatus(executor), HasSubstr("--allow-registry 127.0.0.1:9"));
  // Nothing was pulled into serve's image store.
  const std::filesystem::path blobs = serve.home / "images" / "blobs";
  if (std::filesystem::exists(blobs)) {
    for (const auto& entry : std::filesystem::recursive_directory_iterator(blobs)) {
      EXPECT_FALSE(entry.is_regular_file()) << entry.path();
    }
  }
  ExpectNothingRan(serve);
}

TEST_F(ServeSecurityTest, BodiesMustBeJson) {
  ServeProcess& serve = Start({"--allow-local-executables"});
  HttpReply plain =
      Curl("-X POST " + Token(serve) + "-H 'Content-Type: text/plain' " + Attack() + Url(serve));
  EXPECT_EQ(plain.status, 415) << plain.body;
  EXPECT_THAT(ErrorStatus(plain), HasSubstr("application/json"));
  // curl's default for --data is a form.
  HttpReply form = Curl("-X POST " + Token(serve) + Attack() + Url(serve));
  EXPECT_EQ(form.status, 415) << form.body;
  ExpectNothingRan(serve);
  // A charset parameter is fine: the (invalid) job reaches validation.
  HttpReply charset =
      Curl("-X POST " + Token(serve) + "-H 'Content-Type: Application/JSON; charset=utf-8' " +
           WriteBody("empty.json", "{}") + Url(serve));
  EXPECT_EQ(charset.status, 400) << charset.body;
  EXPECT_THAT(ErrorStatus(charset), HasSubstr("INVALID_ARGUMENT"));
}

TEST_F(ServeSecurityTest, BodyOverOneMebibyteIs413AndChunkedIs411) {
  ServeProcess& serve = Start({});
  const std::string big =
      WriteBody("big.json", "{\"displayName\":\"" + std::string(3 << 19, 'x') + "\"}");
  // curl asks "Expect: 100-continue" first and gets the 413 instead.
  HttpReply reply = Curl("-X POST " + Token(serve) + Json() + big + Url(serve));
  EXPECT_EQ(reply.status, 413) << reply.body;
  EXPECT_THAT(ErrorStatus(reply), HasSubstr("at most 1048576"));
  // Chunked, without a length (which cpp-httplib would not bound): refused.
  HttpReply chunked =
      Curl("-X POST -H 'Transfer-Encoding: chunked' " + Token(serve) + Json() + big + Url(serve));
  EXPECT_EQ(chunked.status, 411) << chunked.body;
  EXPECT_EQ(Curl(Token(serve) + Url(serve)).status, 200);
}

// Sends `head` and then `body` on one connection and reads the reply until
// serve closes it. serve answers a refused request before reading its body
// and closes; the body may then meet a reset. curl stops at that failed send
// (exit 55) without reading the reply it was already sent; this client reads
// it, as the kernel keeps what arrived before the reset.
HttpReply PostRaw(const ServeProcess& serve, const std::string& head, const std::string& body) {
  HttpReply reply;
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return reply;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(serve.port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const timeval timeout{.tv_sec = 20, .tv_usec = 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
  if (::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    ::close(fd);
    return reply;
  }
  for (const std::string* part : {&head, &body}) {
    for (size_t sent = 0; sent < part->size();) {
      const ssize_t n = ::send(fd, part->data() + sent, part->size() - sent, MSG_NOSIGNAL);
      if (n <= 0) break;
      sent += static_cast<size_t>(n);
    }
  }
  std::string text;
  char buffer[16384];
  for (ssize_t n; (n = ::recv(fd, buffer, sizeof(buffer), 0)) > 0;) text.append(buffer, n);
  ::close(fd);
  // "HTTP/1.1 415 ...", headers, a blank line, the body (serve closes).
  const size_t blank = text.find("\r\n\r\n");
  if (!text.starts_with("HTTP/1.1 ") || blank == std::string::npos ||
      !absl::SimpleAtoi(text.substr(9, 3), &reply.status)) {
    reply.body = text;
    return reply;
  }
  reply.body = text.substr(blank + 4);
  return reply;
}

// 300 MB of zeros gzipped (~300 KB): inflating it took serve to 880 MB.
TEST_F(ServeSecurityTest, GzipRequestIs415WithoutInflatingIt) {
  ServeProcess& serve = Start({});
  const std::filesystem::path bomb = dir_.path() / "bomb.json.gz";
  ASSERT_EQ(std::system(("head -c 300000000 /dev/zero | gzip -9 > " + bomb.string()).c_str()), 0);
  ASSERT_LT(std::filesystem::file_size(bomb), 400u * 1024);
  const std::string body = base::ReadFile(bomb).value_or("");
  ASSERT_EQ(body.size(), std::filesystem::file_size(bomb));
  for (const char* encoding : {"gzip", "deflate", "br"}) {
    const std::string head = fmt::format(
        "POST {} HTTP/1.1\r\nHost: 127.0.0.1:{}\r\nAuthorization: Bearer {}\r\n"
        "Content-Type: application/json\r\nContent-Encoding: {}\r\nContent-Length: {}\r\n\r\n",
        kJobs, serve.port, serve.token, encoding, body.size());
    HttpReply reply = PostRaw(serve, head, body);
    EXPECT_EQ(reply.status, 415) << encoding << ": " << reply.body;
    EXPECT_THAT(ErrorStatus(reply), HasSubstr("uncompressed"));
  }
  // curl, which asks "Expect: 100-continue" first, gets the refusal in place
  // of the "100 Continue" and sends no body at all.
  HttpReply expecting = Curl("-X POST -H 'Expect: 100-continue' -H 'Content-Encoding: gzip' " +
                             Token(serve) + Json() + "--data-binary @" + bomb.string() + " " +
                             Url(serve));
  EXPECT_EQ(expecting.status, 415) << expecting.body;
  EXPECT_THAT(ErrorStatus(expecting), HasSubstr("uncompressed"));
  const long peak_kib = testing::PeakRssKib(serve.pid);
  ASSERT_GT(peak_kib, 0);
  EXPECT_LE(peak_kib, 256 * 1024) << "serve's peak RSS (VmHWM) in KiB";
  std::printf("serve peak RSS after the gzip requests: %ld KiB\n", peak_kib);
  EXPECT_EQ(Curl(Token(serve) + Url(serve)).status, 200);
}

TEST_F(ServeSecurityTest, IdleConnectionsDoNotStarveRequests) {
  ServeProcess& serve = Start({});
  // Connections that never send a byte, more than a small worker pool holds.
  std::vector<int> idle;
  for (int i = 0; i < 100; ++i) {
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    ASSERT_GE(fd, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(static_cast<uint16_t>(serve.port));
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)), 0);
    idle.push_back(fd);
  }
  absl::SleepFor(absl::Milliseconds(200));
  const auto start = std::chrono::steady_clock::now();
  HttpReply reply = Curl("--max-time 30 " + Token(serve) + Url(serve));
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(reply.status, 200) << reply.body;
  EXPECT_LT(seconds, 5.0) << "a request behind 100 idle connections";
  for (int fd : idle) ::close(fd);
}

TEST_F(ServeSecurityTest, RunningJobsAreCappedWith429) {
  ServeProcess& serve = Start({"--allow-local-executables", "--max-running-jobs", "1"});
  const std::string sleeper = WriteBody(
      "sleep.json", jobspec::CustomJobToJson(MakeJob("/bin/sleep", {{1, {"30"}}})).dump());
  HttpReply first = Curl("-X POST " + Token(serve) + Json() + sleeper + Url(serve));
  ASSERT_EQ(first.status, 200) << first.body;
  HttpReply second = Curl("-X POST " + Token(serve) + Json() + sleeper + Url(serve));
  EXPECT_EQ(second.status, 429) << second.body;
  EXPECT_THAT(ErrorStatus(second), HasSubstr("RESOURCE_EXHAUSTED 429"));
  EXPECT_THAT(ErrorStatus(second), HasSubstr("--max-running-jobs"));
  // Once the first has ended, there is room again.
  const std::string name = nlohmann::json::parse(first.body)["name"];
  HttpReply cancel = Curl("-X POST " + Token(serve) + Json() + WriteBody("cancel.json", "{}") +
                          Url(serve, "/v1/" + name + ":cancel"));
  ASSERT_EQ(cancel.status, 200) << cancel.body;
  ASSERT_TRUE(WaitFor(
      [&] {
        HttpReply job = Curl(Token(serve) + Url(serve, "/v1/" + name));
        return job.body.find("JOB_STATE_CANCELLED") != std::string::npos;
      },
      absl::Seconds(20)));
  HttpReply third = Curl("-X POST " + Token(serve) + Json() + sleeper + Url(serve));
  EXPECT_EQ(third.status, 200) << third.body;
}

TEST_F(ServeSecurityTest, TokenFileIsPrivateAndGoneAfterExit) {
  ServeProcess& serve = Start({});
  const std::filesystem::path file =
      serve.home / "serve" / ("127.0.0.1_" + std::to_string(serve.port) + ".token");
  struct stat st {};
  ASSERT_EQ(::stat(file.c_str(), &st), 0) << file;
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(::stat(file.parent_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  EXPECT_EQ(base::ReadFile(file).value_or(""), serve.token + "\n");
  EXPECT_EQ(serve.token.size(), 43u);  // 32 random bytes, base64url
  EXPECT_EQ(StopServe(serve), 0);
  serves_.clear();
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace trainpkg::sdk
