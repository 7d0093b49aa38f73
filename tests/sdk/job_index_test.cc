// The job store's index (sdk/job_index.h): lists read it instead of every
// job.json, and it stays right when a write is interrupted, when records
// change outside the store, when the index is damaged or removed, and when
// the store changes between the pages of a list.
#include "sdk/job_index.h"

#include <sys/stat.h>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "sdk/internal/job_id.h"
#include "sdk/job_client.h"
#include "sdk/job_store.h"
#include "tests/sdk/sdk_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::testing::ElementsAre;
using ::testing::IsEmpty;
using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using testing::MakeJob;
using testing::TempDir;

// A finished job `id`, created `minute` minutes after a fixed time, with a
// local.json as the local backend writes one.
jobspec::CustomJob WriteFinishedJob(const JobStore& store, const std::string& id, int minute,
                                    std::string display_name,
                                    jobspec::JobState state = jobspec::JobState::kSucceeded) {
  jobspec::CustomJob job = MakeJob("/bin/true", {{1, {}}});
  job.name = internal::JobResourceName("local", "local", id);
  job.display_name = std::move(display_name);
  job.labels["team"] = "ml";
  job.state = state;
  job.create_time = absl::FromUnixSeconds(1764000000) + absl::Minutes(minute);
  job.update_time = *job.create_time + absl::Seconds(5);
  EXPECT_THAT(store.CreateJobDir(id), IsOk());
  LocalJobDetails details;
  details.supervisor = {.pid = 1, .start_time = 1};
  EXPECT_THAT(store.WriteLocalDetails(id, details), IsOk());
  EXPECT_THAT(store.WriteJob(id, job), IsOk());
  return job;
}

std::vector<std::string> Ids(const std::vector<JobSummary>& summaries) {
  std::vector<std::string> ids;
  for (const JobSummary& summary : summaries) ids.push_back(summary.id);
  return ids;
}

std::vector<std::string> Ids(const std::vector<JobInfo>& jobs) {
  std::vector<std::string> ids;
  for (const JobInfo& info : jobs) ids.push_back(info.id);
  return ids;
}

std::vector<std::string> DisplayNames(const std::vector<JobSummary>& summaries) {
  std::vector<std::string> names;
  for (const JobSummary& summary : summaries) names.push_back(summary.job.display_name);
  return names;
}

// Replaces job.json as the store would, but without telling the index: what
// a crash between the file and the index update leaves, or a trainpkg that
// does not know the index.
void WriteJobFileOnly(const JobStore& store, const std::string& id, const jobspec::CustomJob& job) {
  ASSERT_THAT(base::WriteFileAtomic(store.JobFile(id), jobspec::FormatCustomJobJson(job)), IsOk());
}

TEST(JobIndexTest, ListsNewestFirstFromTheIndexWithoutReadingJobFiles) {
  TempDir home;
  const JobStore store(home.path());
  WriteFinishedJob(store, "100", 1, "first");
  jobspec::CustomJob second = WriteFinishedJob(store, "200", 2, "second");
  WriteFinishedJob(store, "300", 3, "third", jobspec::JobState::kFailed);

  absl::StatusOr<std::vector<JobSummary>> listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Ids(*listed), ElementsAre("300", "200", "100"));
  EXPECT_EQ((*listed)[1].job, SummaryOf("200", second).job);
  EXPECT_EQ((*listed)[0].job.state, jobspec::JobState::kFailed);
  EXPECT_EQ((*listed)[0].job.labels.at("team"), "ml");

  // A job.json the index knows is not read: damaging one changes nothing.
  ASSERT_THAT(base::WriteFileAtomic(store.JobFile("200"), "not json"), IsOk());
  listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(DisplayNames(*listed), ElementsAre("third", "second", "first"));
}

TEST(JobIndexTest, AWriteInterruptedAfterTheStaleMarkIsReadFromTheFile) {
  TempDir home;
  const JobStore store(home.path());
  jobspec::CustomJob job = WriteFinishedJob(store, "100", 1, "before");
  ASSERT_THAT(store.ListJobSummaries(), IsOk());

  // The writer marked the row, replaced job.json and died before updating
  // the row.
  const JobIndex index(home.path());
  ASSERT_THAT(index.MarkStale("100"), IsOk());
  job.display_name = "after";
  job.state = jobspec::JobState::kCancelled;
  WriteJobFileOnly(store, "100", job);

  absl::StatusOr<std::vector<JobSummary>> listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].job.display_name, "after");
  EXPECT_EQ((*listed)[0].job.state, jobspec::JobState::kCancelled);
  // ... and the list repaired the row: it is fresh and right again.
  absl::StatusOr<std::vector<JobIndex::Row>> rows = index.ReadAll();
  ASSERT_THAT(rows, IsOk());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_FALSE((*rows)[0].stale);
  EXPECT_EQ((*rows)[0].summary.job.display_name, "after");
}

TEST(JobIndexTest, AWriteInterruptedBeforeTheFileKeepsTheRecordedJob) {
  TempDir home;
  const JobStore store(home.path());
  WriteFinishedJob(store, "100", 1, "recorded");
  // Marked, then the writer died before replacing job.json.
  ASSERT_THAT(JobIndex(home.path()).MarkStale("100"), IsOk());
  absl::StatusOr<std::vector<JobSummary>> listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(DisplayNames(*listed), ElementsAre("recorded"));
}

TEST(JobIndexTest, AnUpdateOfAnOlderMarkLeavesTheRowStale) {
  TempDir home;
  const JobStore store(home.path());
  jobspec::CustomJob job = WriteFinishedJob(store, "100", 1, "one");
  const JobIndex index(home.path());
  // Two writers: the first marks, the second marks, the second writes the
  // file, then the first (late) updates the row with what it had.
  absl::StatusOr<int64_t> first = index.MarkStale("100");
  absl::StatusOr<int64_t> second = index.MarkStale("100");
  ASSERT_THAT(first, IsOk());
  ASSERT_THAT(second, IsOk());
  EXPECT_GT(*second, *first);
  jobspec::CustomJob newer = job;
  newer.display_name = "two";
  WriteJobFileOnly(store, "100", newer);
  ASSERT_THAT(index.Update("100", *first, job), IsOk());
  absl::StatusOr<std::vector<JobIndex::Row>> rows = index.ReadAll();
  ASSERT_THAT(rows, IsOk());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_TRUE((*rows)[0].stale);
  absl::StatusOr<std::vector<JobSummary>> listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(DisplayNames(*listed), ElementsAre("two"));
}

TEST(JobIndexTest, JobsAddedOrRemovedOutsideTheStoreAreSeen) {
  TempDir home;
  const JobStore store(home.path());
  WriteFinishedJob(store, "100", 1, "kept");
  WriteFinishedJob(store, "200", 2, "removed by hand");
  ASSERT_THAT(store.ListJobSummaries(), IsOk());

  std::filesystem::remove_all(store.JobDir("200"));
  // A job directory an older trainpkg wrote, which the index never saw.
  std::filesystem::create_directories(store.JobDir("300"));
  jobspec::CustomJob added = MakeJob("/bin/true", {{1, {}}});
  added.display_name = "added by hand";
  added.state = jobspec::JobState::kSucceeded;
  added.create_time = absl::FromUnixSeconds(1764000000) + absl::Minutes(3);
  WriteJobFileOnly(store, "300", added);
  // A directory without job.json: a job still being created, not listed.
  std::filesystem::create_directories(store.JobDir("400"));

  absl::StatusOr<std::vector<JobSummary>> listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Ids(*listed), ElementsAre("300", "100"));
  absl::StatusOr<std::vector<JobIndex::Row>> rows = JobIndex(home.path()).ReadAll();
  ASSERT_THAT(rows, IsOk());
  EXPECT_EQ(rows->size(), 2u);  // 200 dropped, 300 added
}

TEST(JobIndexTest, ADamagedOrMissingIndexIsRebuiltFromTheFiles) {
  TempDir home;
  const JobStore store(home.path());
  WriteFinishedJob(store, "100", 1, "a");
  WriteFinishedJob(store, "200", 2, "b");
  const JobIndex index(home.path());
  index.Discard();
  ASSERT_THAT(base::WriteFileAtomic(index.path(), std::string(4096, 'x')), IsOk());
  absl::StatusOr<std::vector<JobSummary>> listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Ids(*listed), ElementsAre("200", "100"));
  ASSERT_THAT(index.ReadAll(), IsOk());
  EXPECT_EQ(index.ReadAll()->size(), 2u);

  index.Discard();
  listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(Ids(*listed), ElementsAre("200", "100"));

  struct stat st {};
  ASSERT_EQ(::stat(index.path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 0600u);
}

TEST(JobIndexTest, RemoveJobDropsItsRow) {
  TempDir home;
  const JobStore store(home.path());
  WriteFinishedJob(store, "100", 1, "a");
  WriteFinishedJob(store, "200", 2, "b");
  ASSERT_THAT(store.RemoveJob("200"), IsOk());
  EXPECT_FALSE(std::filesystem::exists(store.JobDir("200")));
  absl::StatusOr<std::vector<JobIndex::Row>> rows = JobIndex(home.path()).ReadAll();
  ASSERT_THAT(rows, IsOk());
  ASSERT_EQ(rows->size(), 1u);
  EXPECT_EQ((*rows)[0].summary.id, "100");
}

TEST(JobIndexTest, AnAbsentStoreListsNothingAndCreatesNothing) {
  TempDir dir;
  const JobStore store(dir.path() / "home");
  absl::StatusOr<std::vector<JobSummary>> listed = store.ListJobSummaries();
  ASSERT_THAT(listed, IsOk());
  EXPECT_THAT(*listed, IsEmpty());
  EXPECT_FALSE(std::filesystem::exists(dir.path() / "home"));
}

// Paging by the last job shown: jobs created or removed between two pages
// neither repeat nor skip a job that was there all along.
TEST(JobClientPagingTest, PagesStayRightWhenTheStoreChangesBetweenThem) {
  TempDir home;
  const JobStore store(home.path());
  for (int i = 1; i <= 5; ++i) WriteFinishedJob(store, std::to_string(i * 100), i, "job");
  const JobClient client(store);
  JobListOptions options;
  options.limit = 2;
  absl::StatusOr<JobList> first = client.ListJobs(options);
  ASSERT_THAT(first, IsOk());
  EXPECT_THAT(Ids(first->jobs), ElementsAre("500", "400"));
  EXPECT_TRUE(first->more);

  WriteFinishedJob(store, "600", 6, "newer than every page");
  ASSERT_THAT(store.RemoveJob("400"), IsOk());  // the last job shown
  ASSERT_THAT(store.RemoveJob("300"), IsOk());  // the next one

  options.after = SummaryOf(first->jobs.back().id, first->jobs.back().job);
  absl::StatusOr<JobList> second = client.ListJobs(options);
  ASSERT_THAT(second, IsOk());
  EXPECT_THAT(Ids(second->jobs), ElementsAre("200", "100"));
  EXPECT_FALSE(second->more);

  // A filter is applied before the page is cut.
  JobListOptions failed;
  WriteFinishedJob(store, "700", 7, "failed", jobspec::JobState::kFailed);
  failed.matches = [](const jobspec::CustomJob& job) {
    return job.state == jobspec::JobState::kFailed;
  };
  failed.limit = 1;
  absl::StatusOr<JobList> only = client.ListJobs(failed);
  ASSERT_THAT(only, IsOk());
  EXPECT_THAT(Ids(only->jobs), ElementsAre("700"));
  EXPECT_FALSE(only->more);
}

}  // namespace
}  // namespace trainpkg::sdk
