#include "sdk/cli/job_view.h"

#include <sstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/tuning_job_view.h"
#include "sdk/internal/line_stream.h"
#include "sdk/internal/state_lines.h"

namespace trainpkg::cli {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A display name that clears the screen and sets the terminal's title, as a
// job file or a REST request may carry it.
constexpr char kAttackName[] =
    "\x1b[2J\x1b]0;owned\x07"
    "evil\xc2\x9b"
    "31m";
constexpr char kAttackNameShown[] = "\\x1b[2J\\x1b]0;owned\\x07evil\\u009b31m";

// No byte a terminal would act on: C0 controls but '\n', DEL, C1 controls.
void ExpectNoControls(const std::string& text) {
  for (size_t i = 0; i < text.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(text[i]);
    EXPECT_FALSE((c < 0x20 && c != '\n') || c == 0x7f) << "control byte " << int(c) << " at " << i;
    if (c == 0xc2 && i + 1 < text.size()) {
      EXPECT_GT(static_cast<unsigned char>(text[i + 1]), 0x9f) << "C1 control at " << i;
    }
  }
}

TEST(FormatElapsedTest, PicksAReadableUnit) {
  EXPECT_EQ(FormatElapsed(absl::Milliseconds(850)), "850ms");
  EXPECT_EQ(FormatElapsed(absl::Milliseconds(12345)), "12.3s");
  EXPECT_EQ(FormatElapsed(absl::Seconds(245)), "4m05s");
  EXPECT_EQ(FormatElapsed(absl::Minutes(123)), "2h03m");
}

TEST(FormatJobTableTest, AlignsColumns) {
  sdk::JobInfo info;
  info.id = "1763777624123457";
  info.job.display_name = "hello";
  info.job.state = jobspec::JobState::kRunning;
  absl::Time now = absl::Now();
  info.job.create_time = now - absl::Seconds(10);
  info.job.start_time = now - absl::Seconds(5);
  std::string table = FormatJobTable({info}, now);
  EXPECT_THAT(table, HasSubstr("ID                DISPLAY NAME  STATE              CREATED"));
  EXPECT_THAT(table, HasSubstr("1763777624123457  hello         JOB_STATE_RUNNING  "));
  EXPECT_THAT(table, HasSubstr("5.0s      local\n"));

  // A Vertex job is marked in the BACKEND column.
  sdk::JobInfo remote = info;
  remote.id = "42";
  remote.backend = "vertex";
  table = FormatJobTable({info, remote}, now);
  EXPECT_THAT(table, HasSubstr("DURATION  BACKEND\n"));
  EXPECT_THAT(table, HasSubstr("42                hello         JOB_STATE_RUNNING  "));
  EXPECT_THAT(table, HasSubstr("5.0s      vertex\n"));
}

TEST(JobViewEscapingTest, ListShowsTheAttackDisplayNameEscaped) {
  sdk::JobInfo info;
  info.id = "1763777624123457";
  info.job.display_name = kAttackName;
  info.job.state = jobspec::JobState::kFailed;
  const std::string table = FormatJobTable({info}, absl::Now());
  ExpectNoControls(table);
  EXPECT_THAT(table, HasSubstr("1763777624123457  " + std::string(kAttackNameShown) + "  "));

  const std::string json = FormatJobListJson({info});
  ExpectNoControls(json);
  nlohmann::json parsed = nlohmann::json::parse(json);  // still valid JSON, same value
  EXPECT_EQ(parsed[0]["displayName"], kAttackName);
}

TEST(JobViewEscapingTest, DescribeEscapesErrorsArgsAndNames) {
  sdk::JobInfo info;
  info.id = "7";
  info.job.display_name = kAttackName;
  info.job.labels["team"] = "\x1b[8mhidden";
  info.job.error = jobspec::RpcStatus{.code = 9, .message = "line one\n\x1b[1Aoverwritten\r"};
  info.job_dir = "/home/u/.trainpkg/jobs/7";
  info.local.replicas.push_back(sdk::ReplicaDetails{.name = "workerpool0-0",
                                                    .pid = 12,
                                                    .address = "127.0.0.1:1",
                                                    .argv = {"/bin/trainer", "--name=\x1b[2J\n"},
                                                    .container_id = "",
                                                    .host = "",
                                                    .exit_status = std::nullopt});
  const std::string text = FormatJobDescription(info, sdk::JobStore("/home/u/.trainpkg"));
  ExpectNoControls(text);
  EXPECT_THAT(text, HasSubstr(R"("displayName": "\u001b[2J\u001b]0;owned\u0007evil\u009b31m")"));
  EXPECT_THAT(text, HasSubstr(R"("message": "line one\n\u001b[1Aoverwritten\r")"));
  EXPECT_THAT(text, HasSubstr(R"("team": "\u001b[8mhidden")"));
  EXPECT_THAT(text, HasSubstr(R"(command: /bin/trainer --name=\x1b[2J\n)"));
}

TEST(JobViewEscapingTest, ErrorsKeepTheirLinesButNotTheirControls) {
  std::ostringstream err;
  ReportError(err, absl::FailedPreconditionError("job failed:\n\x1b[2Jboom\r\xff"), kExitFailed);
  EXPECT_EQ(err.str(), "trainpkg: error: job failed:\n\\x1b[2Jboom\\r\\xff\n");
}

TEST(JobViewEscapingTest, TuningJobsTableEscapesTheDisplayName) {
  jobspec::HyperparameterTuningJob job;
  job.name = "projects/local/locations/local/hyperparameterTuningJobs/5";
  job.display_name = kAttackName;
  const std::string table = FormatTuningJobTable({job});
  ExpectNoControls(table);
  EXPECT_THAT(table, HasSubstr("5   " + std::string(kAttackNameShown)));
}

// What `trainpkg run` prints while a remote job runs: the service's name and
// error escaped, a replica's own output as it wrote it.
TEST(JobViewEscapingTest, StateLinesEscapeTheServicesTextButNotReplicaOutput) {
  std::ostringstream out;
  sdk::internal::LineStream log(&out);
  sdk::internal::WriteStateLines(&log, "projects/p/locations/l/customJobs/1\x1b[2J",
                                 jobspec::JobState::kFailed,
                                 jobspec::RpcStatus{.code = 3, .message = "boom\n\x1b]0;t\x07"});
  log.WriteOutput("[workerpool0-0] ", "\x1b[1mbold");
  EXPECT_EQ(out.str(),
            "CustomJob projects/p/locations/l/customJobs/1\\x1b[2J current state:\n"
            "JOB_STATE_FAILED\n"
            "Job failed with:\ncode: 3\nmessage: \"boom\n\\x1b]0;t\\x07\"\n"
            "[workerpool0-0] \x1b[1mbold\n");
}

}  // namespace
}  // namespace trainpkg::cli
