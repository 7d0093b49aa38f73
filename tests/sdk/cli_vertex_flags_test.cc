// `trainpkg --backend vertex` flags end to end (finding 18 of issue 16): the
// region is checked before it becomes part of a host name, and the bearer
// token never comes from the command line (ps shows it), but from
// $CLOUDSDK_AUTH_ACCESS_TOKEN or --access-token-file FILE|-.
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <map>
#include <mutex>
#include <regex>
#include <string>
#include <thread>
#include <vector>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "httplib.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;
using testing::TempDir;

// A loopback port that accepts and at once closes every connection,
// counting them: what a token thief's listener would see.
class ConnectionCounter {
 public:
  ConnectionCounter() {
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    EXPECT_EQ(::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    EXPECT_EQ(::listen(fd_, 16), 0);
    socklen_t len = sizeof(addr);
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    thread_ = std::thread([this] {
      while (!stop_) {
        pollfd pfd{.fd = fd_, .events = POLLIN, .revents = 0};
        if (::poll(&pfd, 1, 50) <= 0) continue;
        int conn = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (conn >= 0) {
          ++connections_;
          ::close(conn);
        }
      }
    });
  }
  ~ConnectionCounter() {
    stop_ = true;
    thread_.join();
    ::close(fd_);
  }
  int port() const { return port_; }
  int connections() const { return connections_; }

 private:
  int fd_ = -1;
  int port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::thread thread_;
};

// A Vertex-like endpoint on loopback that refuses every request (403),
// recording the Authorization header each one carried.
class TokenRecorder {
 public:
  TokenRecorder() {
    const auto refuse = [this](const httplib::Request& req, httplib::Response& res) {
      {
        std::lock_guard<std::mutex> lock(mu_);
        authorizations_.push_back(req.get_header_value("Authorization"));
        paths_.push_back(req.path);
      }
      res.status = 403;
      res.set_content(R"({"error":{"code":403,"message":"denied","status":"PERMISSION_DENIED"}})",
                      "application/json");
    };
    server_.Post(".*", refuse);
    server_.Get(".*", refuse);
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) ::usleep(1000);
  }
  ~TokenRecorder() {
    server_.stop();
    thread_.join();
  }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  std::vector<std::string> authorizations() {
    std::lock_guard<std::mutex> lock(mu_);
    return authorizations_;
  }
  std::vector<std::string> paths() {
    std::lock_guard<std::mutex> lock(mu_);
    return paths_;
  }

 private:
  httplib::Server server_;
  int port_ = 0;
  std::thread thread_;
  std::mutex mu_;
  std::vector<std::string> authorizations_;
  std::vector<std::string> paths_;
};

struct CliResult {
  int exit_code = -1;
  std::string output;  // stdout and stderr
};

class CliVertexFlagsTest : public ::testing::Test {
 protected:
  // Runs `trainpkg <args>` through /bin/sh with standard input from
  // `stdin_text`, TRAINPKG_HOME in the test's directory and `env` on top.
  CliResult Run(const std::vector<std::string>& args,
                const std::map<std::string, std::string>& env = {},
                const std::string& stdin_text = "") {
    const std::filesystem::path input = dir_.path() / "stdin";
    EXPECT_THAT(base::WriteFileAtomic(input, stdin_text), IsOk());
    std::string command = std::string("exec '") + TRAINPKG_PATH + "'";
    for (const std::string& arg : args) command += " '" + arg + "'";
    command += " < '" + input.string() + "'";
    std::map<std::string, std::string> full_env = env;
    full_env["TRAINPKG_HOME"] = (dir_.path() / "home").string();
    const std::filesystem::path out = dir_.path() / "out";
    int pid = testing::SpawnWithOutput({"/bin/sh", "-c", command}, out, full_env);
    CliResult result;
    result.exit_code = testing::WaitExitCode(pid);
    result.output = base::ReadFile(out).value_or("");
    return result;
  }

  std::vector<std::string> VertexRun(const std::string& region, const std::string& endpoint) {
    std::vector<std::string> args = {
        "run",
        "--backend",
        "vertex",
        "--project",
        "my-project",
        "--region",
        region,
        "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=local:/bin/true"};
    if (!endpoint.empty()) args.insert(args.end(), {"--endpoint", endpoint});
    return args;
  }

  TempDir dir_;
};

TEST_F(CliVertexFlagsTest, RegionThatNamesAnotherHostIsRefusedBeforeAnyRequest) {
  ConnectionCounter thief;
  const std::string region = "127.0.0.1:" + std::to_string(thief.port()) + "/x#";
  CliResult run = Run(VertexRun(region, ""), {{"CLOUDSDK_AUTH_ACCESS_TOKEN", "ya29.secret-token"}});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--region: \"127.0.0.1:"));
  EXPECT_THAT(run.output, HasSubstr("lowercase letters, digits and '-'"));
  EXPECT_THAT(run.output, Not(HasSubstr("secret-token")));
  // Give a connection that might still be on its way the time to arrive.
  ::usleep(200 * 1000);
  EXPECT_EQ(thief.connections(), 0);

  CliResult project =
      Run({"run", "--backend", "vertex", "--project", "p/../../x?", "--region", "us-central1",
           "--worker-pool-spec=machine-type=n1-standard-4,"
           "container-image-uri=local:/bin/true"},
          {{"CLOUDSDK_AUTH_ACCESS_TOKEN", "t"}});
  EXPECT_EQ(project.exit_code, 2) << project.output;
  EXPECT_THAT(project.output, HasSubstr("--project: \"p/../../x?\" is not a Google Cloud project"));
}

// Issue 19: --job-id is checked by the backend's driver, the rule
// CustomJob::Create applies: Vertex AI assigns the id, a Kubernetes job's is
// a DNS-1035 label (refused before anything is built or sent).
TEST_F(CliVertexFlagsTest, JobIdFollowsTheBackendsRule) {
  TokenRecorder server;
  std::vector<std::string> args = VertexRun("us-central1", server.endpoint());
  args.insert(args.end(), {"--job-id", "my_job"});
  CliResult vertex = Run(args, {{"CLOUDSDK_AUTH_ACCESS_TOKEN", "t"}});
  EXPECT_EQ(vertex.exit_code, 2) << vertex.output;
  EXPECT_THAT(vertex.output, HasSubstr("--job-id: Vertex AI assigns the job id"));
  EXPECT_THAT(server.authorizations(), ::testing::IsEmpty());

  CliResult k8s = Run({"run", "--backend", "k8s", "--kubeconfig",
                       (dir_.path() / "no-kubeconfig").string(), "--job-id", "Not_A_Label",
                       "--worker-pool-spec=machine-type=n1-standard-4,container-image-uri=reg/x:1"});
  EXPECT_EQ(k8s.exit_code, 2) << k8s.output;
  EXPECT_THAT(k8s.output, HasSubstr("--job-id: \"Not_A_Label\" is not a DNS-1035 label"));

  CliResult local = Run({"run", "--job-id", "9-not-valid",
                         "--worker-pool-spec=machine-type=n1-standard-4,"
                         "container-image-uri=local:/bin/true"});
  EXPECT_EQ(local.exit_code, 2) << local.output;
  EXPECT_THAT(local.output, HasSubstr("--job-id: job ID '9-not-valid' must start with a letter"));
}

// gcloud pushes the image it autopackages; Vertex cannot pull from this
// machine's store, so local-package-path needs output-image-uri there.
TEST_F(CliVertexFlagsTest, AutopackagingWithoutOutputImageUriIsRefusedBeforeAnyRequest) {
  TokenRecorder server;
  std::filesystem::create_directories(dir_.path() / "pkg/trainer");
  std::vector<std::string> args = {
      "run",
      "--backend",
      "vertex",
      "--project",
      "my-project",
      "--region",
      "us-central1",
      "--endpoint",
      server.endpoint(),
      "--worker-pool-spec=machine-type=n1-standard-4,executor-image-uri=reg/py:1,"
      "local-package-path=" +
          (dir_.path() / "pkg").string() + ",python-module=trainer.task"};
  CliResult run = Run(args, {{"CLOUDSDK_AUTH_ACCESS_TOKEN", "t"}});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--worker-pool-spec #1: local-package-path needs "
                                    "output-image-uri=REGISTRY/REPO[:TAG] with this backend"));
  EXPECT_THAT(server.authorizations(), ::testing::IsEmpty());
  EXPECT_FALSE(std::filesystem::exists(dir_.path() / "home/images")) << "something was built";
}

TEST_F(CliVertexFlagsTest, RunHelpDocumentsTheAutopackagingKeys) {
  CliResult help = Run({"run", "--help"});
  for (const char* key :
       {"local-package-path=DIR", "python-module=MODULE", "script=FILE", "requirements=A;B",
        "extra-packages=A;B", "extra-dirs=A;B", "output-image-uri=REF",
        "local-package-path=.,python-module=trainer.task"}) {
    EXPECT_THAT(help.output, HasSubstr(key));
  }
}

TEST_F(CliVertexFlagsTest, AccessTokenOnTheCommandLineIsRefused) {
  TokenRecorder server;
  std::vector<std::string> args = VertexRun("us-central1", server.endpoint());
  args.insert(args.end(), {"--access-token", "ya29.in-ps"});
  CliResult run = Run(args);
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr("--access-token: a token on the command line is visible"));
  EXPECT_THAT(run.output, HasSubstr("CLOUDSDK_AUTH_ACCESS_TOKEN"));
  EXPECT_THAT(run.output, HasSubstr("--access-token-file"));
  EXPECT_THAT(server.authorizations(), ::testing::IsEmpty());

  CliResult describe = Run({"jobs", "describe", "123", "--access-token", "ya29.in-ps"});
  EXPECT_EQ(describe.exit_code, 2) << describe.output;
  EXPECT_THAT(describe.output, HasSubstr("--access-token-file"));

  CliResult help = Run({"run", "--help"});
  EXPECT_THAT(help.output, HasSubstr("--access-token-file"));
  EXPECT_THAT(help.output, Not(HasSubstr("--access-token ")));
}

TEST_F(CliVertexFlagsTest, TokenComesFromTheEnvironmentOrAFileOrStdin) {
  TokenRecorder server;
  const std::vector<std::string> args = VertexRun("us-central1", server.endpoint());

  EXPECT_EQ(Run(args, {{"CLOUDSDK_AUTH_ACCESS_TOKEN", "tok-env"}}).exit_code, 1);

  const std::filesystem::path file = dir_.path() / "token";
  ASSERT_THAT(base::WriteFileAtomic(file, "tok-file\n"), IsOk());
  std::vector<std::string> with_file = args;
  with_file.insert(with_file.end(), {"--access-token-file", file.string()});
  // The file wins over the variable.
  EXPECT_EQ(Run(with_file, {{"CLOUDSDK_AUTH_ACCESS_TOKEN", "tok-env"}}).exit_code, 1);

  std::vector<std::string> with_stdin = args;
  with_stdin.insert(with_stdin.end(), {"--access-token-file", "-"});
  EXPECT_EQ(Run(with_stdin, {}, "tok-stdin\n").exit_code, 1);

  EXPECT_THAT(server.authorizations(),
              ::testing::ElementsAre("Bearer tok-env", "Bearer tok-file", "Bearer tok-stdin"));

  CliResult empty = Run(with_stdin, {}, "\n");
  EXPECT_EQ(empty.exit_code, 2) << empty.output;
  EXPECT_THAT(empty.output, HasSubstr("--access-token-file: standard input holds no token"));
}

// Issue 18 item 7: `--region us-central1` alone selects Vertex, the project
// coming from gcloud's configuration, as gcloud's own commands do.
TEST_F(CliVertexFlagsTest, RegionAloneSelectsVertexWithGcloudsProject) {
  TokenRecorder server;
  const std::filesystem::path gcloud = dir_.path() / "gcloud";
  ASSERT_TRUE(base::WriteFileAtomic(gcloud / "configurations" / "config_default",
                                    "[core]\naccount = me@example.com\nproject = gcloud-proj\n")
                  .ok());
  const std::map<std::string, std::string> env = {
      {"CLOUDSDK_CONFIG", gcloud.string()},
      {"XDG_CONFIG_HOME", (dir_.path() / "xdg").string()},
      {"CLOUDSDK_AUTH_ACCESS_TOKEN", "tok"}};
  CliResult run = Run({"run", "--region", "us-central1", "--endpoint", server.endpoint(),
                       "--worker-pool-spec=machine-type=n1-standard-4,"
                       "container-image-uri=local:/bin/true"},
                      env);
  EXPECT_EQ(run.exit_code, 1) << run.output;  // the recorder refuses with 403
  ASSERT_THAT(server.paths(), ::testing::Not(::testing::IsEmpty())) << run.output;
  EXPECT_THAT(server.paths().front(),
              HasSubstr("/v1/projects/gcloud-proj/locations/us-central1/customJobs"));
  // gcloud's configuration was read, not written.
  EXPECT_EQ(*base::ReadFile(gcloud / "configurations" / "config_default"),
            "[core]\naccount = me@example.com\nproject = gcloud-proj\n");
  EXPECT_FALSE(std::filesystem::exists(gcloud / "active_config"));
}

TEST_F(CliVertexFlagsTest, MalformedConfigFileIsAUsageErrorNamingFileAndLine) {
  const std::filesystem::path config = dir_.path() / "xdg" / "trainpkg" / "config.yaml";
  ASSERT_THAT(base::WriteFileAtomic(config, "backend: local\nregoin: us-central1\n"), IsOk());
  CliResult run = Run({"run",
                       "--worker-pool-spec=machine-type=n1-standard-4,"
                       "container-image-uri=local:/bin/true"},
                      {{"XDG_CONFIG_HOME", (dir_.path() / "xdg").string()}});
  EXPECT_EQ(run.exit_code, 2) << run.output;
  EXPECT_THAT(run.output, HasSubstr(config.string() + ": line 2: unknown key \"regoin\"; did you "
                                                      "mean 'region'?"));

  CliResult help = Run({"run", "--help"});
  EXPECT_THAT(help.output, HasSubstr("CLOUDSDK_CORE_PROJECT"));
  // --help is wrapped to the terminal (80 columns in a pipe): read it as one line.
  EXPECT_THAT(std::regex_replace(help.output, std::regex(R"(\s+)"), " "),
              HasSubstr("vertex when --project or --region is given"));
}

}  // namespace
}  // namespace trainpkg::sdk
