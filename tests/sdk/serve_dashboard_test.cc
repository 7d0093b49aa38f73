// The dashboard's HTTP side on the built `trainpkg serve`
// (docs/adr/2026-11-28-dashboard.md): the printed URL's token becomes a
// cookie that opens only the dashboard, from pages of serve's own origin;
// without it pages and data are refused; the pages, the data, live logs as
// server-sent events, and cancel, driven with curl as a browser would.
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>

#include "absl/time/clock.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "nlohmann/json.hpp"
#include "tests/sdk/sdk_test_util.h"
#include "tests/sdk/serve_process.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::sdk {
namespace {

using testing::Curl;
using ::testing::HasSubstr;
using testing::HttpReply;
using testing::MakeJob;
using ::testing::Not;
using testing::ServeProcess;
using testing::TempDir;
using testing::WaitFor;
using ::trainpkg::testing::IsOk;

constexpr char kJobs[] = "/v1/projects/p/locations/l/customJobs";

class ServeDashboardTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = new TempDir();
    absl::StatusOr<ServeProcess> serve =
        testing::StartServe(TRAINPKG_PATH, dir_->path() / "home", dir_->path() / "serve.out",
                            {"--allow-local-executables"});
    ASSERT_THAT(serve, IsOk());
    serve_ = new ServeProcess(*std::move(serve));
  }
  static void TearDownTestSuite() {
    if (serve_ != nullptr) {
      EXPECT_EQ(testing::StopServe(*serve_), 0);
    }
    delete serve_;
    delete dir_;
  }

  void SetUp() override { ASSERT_NE(serve_, nullptr); }

  static std::string Url(const std::string& path) { return "'" + serve_->endpoint + path + "'"; }
  static std::string Bearer() { return "-H 'Authorization: Bearer " + serve_->token + "' "; }
  static std::string Own() { return "-H 'Origin: " + serve_->endpoint + "' "; }

  // What a browser does with the printed URL: the headers its pages then send.
  static std::string PageCookie() { return CookieOnly() + "-H 'Sec-Fetch-Site: same-origin' "; }
  static std::string CookieOnly() {
    HttpReply reply = Curl("-i " + Url("/ui/?token=" + serve_->token));
    EXPECT_EQ(reply.status, 303) << reply.body;
    std::smatch match;
    const std::regex cookie(R"(Set-Cookie: (trainpkg-serve-[0-9]+=[A-Za-z0-9_-]+);)",
                            std::regex::icase);
    EXPECT_TRUE(std::regex_search(reply.body, match, cookie)) << reply.body;
    return "-H 'Cookie: " + match[1].str() + "' ";
  }

  // Creates a job through the API; its id.
  static std::string CreateJob(const std::string& script) {
    const std::filesystem::path body = dir_->path() / "job.json";
    std::ofstream(body)
        << jobspec::CustomJobToJson(MakeJob("/bin/sh", {{1, {"-c", script}}})).dump();
    HttpReply created = Curl("-X POST " + Bearer() + "-H 'Content-Type: application/json' " +
                             "--data-binary @" + body.string() + " " + Url(kJobs));
    EXPECT_EQ(created.status, 200) << created.body;
    const std::string name = nlohmann::json::parse(created.body, nullptr, false).value("name", "");
    return name.substr(name.rfind('/') + 1);
  }

  static nlohmann::json Get(const std::string& auth, const std::string& path) {
    HttpReply reply = Curl(auth + Url(path));
    EXPECT_EQ(reply.status, 200) << path << ": " << reply.body;
    return nlohmann::json::parse(reply.body, nullptr, false);
  }

  static TempDir* dir_;
  static ServeProcess* serve_;
};

TempDir* ServeDashboardTest::dir_ = nullptr;
ServeProcess* ServeDashboardTest::serve_ = nullptr;

TEST_F(ServeDashboardTest, TheBannerNamesTheDashboardUrl) {
  std::ifstream out(serve_->out);
  std::string text((std::istreambuf_iterator<char>(out)), std::istreambuf_iterator<char>());
  EXPECT_THAT(text, HasSubstr(serve_->endpoint + "/ui/?token=" + serve_->token));
}

TEST_F(ServeDashboardTest, TheUrlTokenBecomesAnHttpOnlySameSiteCookie) {
  HttpReply reply = Curl("-i " + Url("/ui/jobs/abc?token=" + serve_->token));
  EXPECT_EQ(reply.status, 303) << reply.body;
  EXPECT_THAT(reply.body, HasSubstr("Location: /ui/jobs/abc\r\n"));
  EXPECT_THAT(reply.body, HasSubstr(fmt::format("Set-Cookie: trainpkg-serve-{}=", serve_->port)));
  EXPECT_THAT(reply.body, HasSubstr("; HttpOnly; SameSite=Strict; Path=/"));
  // The cookie is not the token: what a browser keeps opens no API.
  EXPECT_THAT(reply.body, Not(HasSubstr("=" + serve_->token + ";")));
  // Only back to a plain dashboard path.
  HttpReply odd = Curl("-i --path-as-is " + Url("/ui/..//evil.example/?token=" + serve_->token));
  EXPECT_EQ(odd.status, 303) << odd.body;
  EXPECT_THAT(odd.body, HasSubstr("Location: /ui/\r\n"));
}

TEST_F(ServeDashboardTest, WithoutTheTokenPagesAndDataAreRefused) {
  for (const char* path :
       {"/", "/ui/", "/ui/jobs/abc", "/ui/static/app.js", "/ui/api/jobs", "/ui/api/tuning"}) {
    EXPECT_EQ(Curl(Url(path)).status, 401) << path;
  }
  EXPECT_EQ(Curl(Url("/ui/?token=" + std::string(43, 'A'))).status, 401);
  // A page of another origin, or a rebound DNS name, gets nothing even with the token.
  EXPECT_EQ(Curl("-H 'Origin: http://evil.example' " + Url("/ui/?token=" + serve_->token)).status,
            403);
  EXPECT_EQ(Curl(fmt::format("-H 'Host: evil.example:{}' ", serve_->port) +
                 Url("/ui/?token=" + serve_->token))
                .status,
            403);
  const std::string cookie = CookieOnly();
  EXPECT_EQ(Curl(cookie + Url("/ui/api/jobs")).status, 200);
  EXPECT_EQ(Curl(cookie + "-H 'Origin: http://evil.example' " + Url("/ui/api/jobs")).status, 403);
  // Another port of 127.0.0.1 is the same site: the cookie comes along, and is refused.
  EXPECT_EQ(Curl(cookie + "-H 'Sec-Fetch-Site: same-site' " + Url("/ui/api/jobs")).status, 403);
}

TEST_F(ServeDashboardTest, TheCookieOpensPagesButNeverTheJobApi) {
  const std::string cookie = PageCookie();
  HttpReply page = Curl("-i " + cookie + Url("/ui/"));
  EXPECT_EQ(page.status, 200);
  EXPECT_THAT(page.body, HasSubstr("/ui/static/app.js"));
  EXPECT_THAT(page.body, HasSubstr("frame-ancestors 'none'"));
  EXPECT_THAT(page.body, HasSubstr("X-Frame-Options: DENY"));
  EXPECT_EQ(Curl(cookie + Url("/ui/static/app.js")).status, 200);
  EXPECT_EQ(Curl(cookie + Url("/ui/static/style.css")).status, 200);
  EXPECT_EQ(Curl("-i " + cookie + Url("/")).body.find("Location: /ui/") != std::string::npos, true);
  EXPECT_EQ(Curl("--path-as-is " + cookie + Url("/ui/static/../../etc/passwd")).status, 404);
  // No page can create (or even list) jobs through the Vertex API.
  const std::filesystem::path body = dir_->path() / "attack.json";
  std::ofstream(body) << jobspec::CustomJobToJson(MakeJob("/bin/true", {{1, {}}})).dump();
  HttpReply create = Curl("-X POST " + cookie + Own() + "-H 'Content-Type: application/json' " +
                          "--data-binary @" + body.string() + " " + Url(kJobs));
  EXPECT_EQ(create.status, 401) << create.body;
  EXPECT_EQ(Curl(cookie + Url(kJobs)).status, 401);
  // The bearer token opens the dashboard's data too (scripts, curl).
  EXPECT_EQ(Curl(Bearer() + Url("/ui/api/jobs")).status, 200);
}

TEST_F(ServeDashboardTest, AJobsReplicasLiveLogsAndCancel) {
  const std::string cookie = PageCookie();
  const std::string id = CreateJob("echo first line; sleep 1; echo second line; exec sleep 60");
  ASSERT_FALSE(id.empty());
  ASSERT_TRUE(WaitFor(
      [&] {
        nlohmann::json job = Get(cookie, "/ui/api/jobs/" + id);
        return job["replicas"].size() == 1 && job["replicas"][0]["state"] == "RUNNING";
      },
      absl::Seconds(10)));
  nlohmann::json list = Get(cookie, "/ui/api/jobs?filter=state%3DRUNNING");
  ASSERT_GE(list["jobs"].size(), 1u) << list.dump();
  EXPECT_EQ(list["jobs"][0]["id"], id);
  EXPECT_EQ(list["jobs"][0]["state"], "JOB_STATE_RUNNING");
  EXPECT_EQ(list["jobs"][0]["backend"], "local");
  EXPECT_EQ(Curl(cookie + Url("/ui/api/jobs?filter=stat%3D1")).status, 400);

  nlohmann::json job = Get(cookie, "/ui/api/jobs/" + id);
  EXPECT_EQ(job["replicas"][0]["name"], "workerpool0-0");
  EXPECT_THAT(job["clusterEnv"]["workerpool0-0"]["CLUSTER_SPEC"].get<std::string>(),
              HasSubstr("workerpool0"));
  EXPECT_FALSE(job["clusterEnv"]["workerpool0-0"].contains("TRAINPKG_JOB_SECRET"));
  EXPECT_EQ(job["logs"], nlohmann::json::array({"workerpool0-0"}));

  // The log as it grows: the second line is written after the stream opened.
  const std::string logs = Url("/ui/api/jobs/" + id + "/logs/workerpool0-0");
  HttpReply live = Curl("-N --max-time 3 " + cookie + logs);
  EXPECT_THAT(live.body, HasSubstr("data: first line\n\n"));
  EXPECT_THAT(live.body, HasSubstr("data: second line\n\n"));
  EXPECT_THAT(live.body, Not(HasSubstr("event: end")));
  // Resuming where an EventSource left off.
  const std::string first_id = "id: " + std::to_string(std::string("first line\n").size());
  EXPECT_THAT(live.body, HasSubstr(first_id + "\ndata: first line"));
  HttpReply resumed = Curl("-N --max-time 2 " + cookie + "-H 'Last-Event-ID: 11' " + logs);
  EXPECT_THAT(resumed.body, Not(HasSubstr("first line")));
  EXPECT_THAT(resumed.body, HasSubstr("data: second line"));

  // Cancel: only from a page of this origin.
  const std::string cancel = Url("/ui/api/jobs/" + id + "/cancel");
  EXPECT_EQ(Curl("-X POST -d '' " + cookie + cancel).status, 403);
  EXPECT_EQ(Curl("-X POST -d '' " + cookie + "-H 'Origin: http://127.0.0.1:1' " + cancel).status,
            403);
  EXPECT_EQ(Get(cookie, "/ui/api/jobs/" + id)["job"]["state"], "JOB_STATE_RUNNING");
  HttpReply cancelled = Curl("-X POST -d '' " + cookie + Own() + cancel);
  EXPECT_EQ(cancelled.status, 200) << cancelled.body;
  EXPECT_TRUE(WaitFor(
      [&] { return Get(cookie, "/ui/api/jobs/" + id)["job"]["state"] == "JOB_STATE_CANCELLED"; },
      absl::Seconds(20)));
  // A finished job's stream ends by itself, with its state.
  HttpReply ended = Curl("-N --max-time 10 " + cookie + logs);
  EXPECT_EQ(ended.status, 200);
  EXPECT_THAT(ended.body, HasSubstr("event: end\ndata: JOB_STATE_CANCELLED\n\n"));
  EXPECT_EQ(Curl(cookie + Url("/ui/api/jobs/" + id + "/logs/workerpool9-0")).status, 404);
  EXPECT_EQ(Curl(cookie + Url("/ui/api/jobs/nosuchjob")).status, 404);
}

TEST_F(ServeDashboardTest, ATuningJobIsCancelledFromItsPage) {
  const std::string cookie = PageCookie();
  nlohmann::json study = {
      {"displayName", "study"},
      {"maxTrialCount", 2},
      {"parallelTrialCount", 1},
      {"studySpec",
       {{"metrics", {{{"metricId", "accuracy"}, {"goal", "MAXIMIZE"}}}},
        {"parameters",
         {{{"parameterId", "lr"}, {"doubleValueSpec", {{"minValue", 0.1}, {"maxValue", 1}}}}}}}},
      {"trialJobSpec", jobspec::CustomJobToJson(MakeJob("/bin/sh", {{1, {"-c", "exec sleep 60"}}}))
                           .at("jobSpec")}};
  const std::filesystem::path body = dir_->path() / "study.json";
  std::ofstream(body) << study.dump();
  HttpReply created = Curl("-X POST " + Bearer() + "-H 'Content-Type: application/json' " +
                           "--data-binary @" + body.string() + " " +
                           Url("/v1/projects/p/locations/l/hyperparameterTuningJobs"));
  ASSERT_EQ(created.status, 200) << created.body;
  const std::string name = nlohmann::json::parse(created.body).value("name", "");
  const std::string id = name.substr(name.rfind('/') + 1);
  ASSERT_TRUE(WaitFor(
      [&] {
        nlohmann::json job = Get(cookie, "/ui/api/tuning/" + id);
        return job["trialJobs"].size() == 1;
      },
      absl::Seconds(20)));
  nlohmann::json list = Get(cookie, "/ui/api/tuning");
  ASSERT_GE(list["tuningJobs"].size(), 1u);
  EXPECT_EQ(list["tuningJobs"][0]["id"], id);
  const std::string cancel = Url("/ui/api/tuning/" + id + "/cancel");
  EXPECT_EQ(Curl("-X POST -d '' " + cookie + cancel).status, 403);
  EXPECT_EQ(Curl("-X POST -d '' " + cookie + Own() + cancel).status, 200);
  EXPECT_TRUE(WaitFor(
      [&] {
        return Get(cookie, "/ui/api/tuning/" + id)["job"]["state"] == "JOB_STATE_CANCELLED";
      },
      absl::Seconds(30)));
  EXPECT_EQ(Curl("-X POST -d '' " + cookie + Own() + Url("/ui/api/tuning/nosuch/cancel")).status,
            404);
}

}  // namespace
}  // namespace trainpkg::sdk
