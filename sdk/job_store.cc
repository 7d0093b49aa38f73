#include "sdk/job_store.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>
#include <unordered_map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/private_file.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk {
namespace {

absl::StatusOr<HistoryEntry> ParseHistoryLine(std::string_view line) {
  nlohmann::json json = base::ParseJson(line).value_or(nlohmann::json::value_t::discarded);
  if (!json.is_object() || !json.contains("state") || !json["state"].is_string() ||
      !json.contains("time") || !json["time"].is_string()) {
    return absl::InvalidArgumentError(fmt::format("bad history line: {}", line));
  }
  HistoryEntry entry;
  TP_ASSIGN_OR_RETURN(entry.state, jobspec::ParseJobState(json["state"].get<std::string>()));
  TP_ASSIGN_OR_RETURN(entry.time, jobspec::ParseTimestamp(json["time"].get<std::string>()));
  return entry;
}

constexpr mode_t kPrivateDirMode = 0700;

absl::Status WriteRecord(const std::filesystem::path& path, std::string_view contents) {
  return base::WriteFileAtomicPrivate(path, contents);
}

}  // namespace

absl::Status MakePrivateDir(const std::filesystem::path& dir, ExistingDir existing) {
  if (::mkdir(dir.c_str(), kPrivateDirMode) == 0) {
    // The umask may have narrowed it further (e.g. 0277 leaves no write bit).
    if (::chmod(dir.c_str(), kPrivateDirMode) != 0) {
      return base::ErrnoToStatus(errno, absl::StrCat("making ", dir.string(), " private (0700)"));
    }
    return absl::OkStatus();
  }
  if (errno != EEXIST || existing == ExistingDir::kRefuse) {
    return base::ErrnoToStatus(errno, absl::StrCat("creating ", dir.string()));
  }
  struct stat st {};
  if (::stat(dir.c_str(), &st) != 0) {
    return base::ErrnoToStatus(errno, absl::StrCat("reading ", dir.string()));
  }
  if (!S_ISDIR(st.st_mode)) {
    return absl::FailedPreconditionError(absl::StrCat(dir.string(), " is not a directory"));
  }
  // Another user's directory is left as it is: not ours to narrow, and
  // chmod would fail.
  if (st.st_uid != ::geteuid() || (st.st_mode & 07777) == kPrivateDirMode) return absl::OkStatus();
  if (::chmod(dir.c_str(), kPrivateDirMode) != 0) {
    return base::ErrnoToStatus(errno, absl::StrCat("making ", dir.string(), " private (0700)"));
  }
  return absl::OkStatus();
}

absl::Status MakeHomePrivate(const std::filesystem::path& home) {
  if (home.has_parent_path()) {
    std::error_code ec;
    std::filesystem::create_directories(home.parent_path(), ec);
    if (ec) {
      return absl::PermissionDeniedError(
          absl::StrCat("creating ", home.parent_path().string(), ": ", ec.message()));
    }
  }
  return MakePrivateDir(home, ExistingDir::kNarrow);
}

absl::StatusOr<std::filesystem::path> DefaultJobStoreHome(const base::Environment& env) {
  if (std::optional<std::string> home = env.Get("TRAINPKG_HOME"); home && !home->empty()) {
    return std::filesystem::path(*home);
  }
  if (std::optional<std::string> home = env.Get("HOME"); home && !home->empty()) {
    return std::filesystem::path(*home) / ".trainpkg";
  }
  return absl::FailedPreconditionError(
      "cannot locate the job store: neither TRAINPKG_HOME nor HOME is set");
}

std::filesystem::path JobStore::JobDir(std::string_view id) const {
  return home_ / "jobs" / std::string(id);
}
std::filesystem::path JobStore::JobFile(std::string_view id) const {
  return JobDir(id) / "job.json";
}
std::filesystem::path JobStore::HistoryFile(std::string_view id) const {
  return JobDir(id) / "history.jsonl";
}
std::filesystem::path JobStore::LocalFile(std::string_view id) const {
  return JobDir(id) / "local.json";
}
std::filesystem::path JobStore::LogDir(std::string_view id) const { return JobDir(id) / "logs"; }
std::filesystem::path JobStore::LogFile(std::string_view id, std::string_view replica) const {
  return LogDir(id) / fmt::format("{}.log", replica);
}
std::filesystem::path JobStore::ContainerBundleDir(std::string_view id,
                                                   std::string_view replica) const {
  return JobDir(id) / "containers" / replica;
}
std::filesystem::path JobStore::CancelRequestFile(std::string_view id) const {
  return JobDir(id) / "cancel_request";
}

absl::Status JobStore::CreateJobDir(std::string_view id) const {
  TP_RETURN_IF_ERROR(MakeHomePrivate(home_));
  TP_RETURN_IF_ERROR(MakePrivateDir(home_ / "jobs", ExistingDir::kNarrow));
  // An existing job dir is an id already taken: refused rather than mixing
  // two jobs' records.
  TP_RETURN_IF_ERROR(MakePrivateDir(JobDir(id), ExistingDir::kRefuse));
  return MakePrivateDir(LogDir(id), ExistingDir::kRefuse);
}

absl::Status JobStore::WriteJob(std::string_view id, const jobspec::CustomJob& job) const {
  return JobIndex(home_).Change(
      id, &job, [&] { return WriteRecord(JobFile(id), jobspec::FormatCustomJobJson(job)); });
}

absl::Status JobStore::RemoveJob(std::string_view id) const {
  return JobIndex(home_).Change(id, nullptr, [&]() -> absl::Status {
    std::error_code ec;
    std::filesystem::remove_all(JobDir(id), ec);
    if (ec) {
      return absl::InternalError(fmt::format("deleting {}: {}", JobDir(id).string(), ec.message()));
    }
    return absl::OkStatus();
  });
}

absl::Status JobStore::AppendHistory(std::string_view id, const HistoryEntry& entry) const {
  nlohmann::json line = {{"state", jobspec::JobStateName(entry.state)},
                         {"time", jobspec::FormatTimestamp(entry.time)}};
  // Appended, never rewritten: the supervisor and a reader repairing an
  // orphan may both add a line.
  return base::AppendToFilePrivate(HistoryFile(id), line.dump() + "\n");
}

absl::Status JobStore::WriteLocalDetails(std::string_view id,
                                         const LocalJobDetails& details) const {
  return WriteRecord(LocalFile(id), FormatLocalJobDetails(details));
}

absl::Status JobStore::RequestCancel(std::string_view id) const {
  return WriteRecord(CancelRequestFile(id), "");
}

bool JobStore::CancelRequested(std::string_view id) const {
  struct stat st {};
  return ::stat(CancelRequestFile(id).c_str(), &st) == 0;
}

absl::StatusOr<jobspec::CustomJob> JobStore::ReadJob(std::string_view id) const {
  absl::StatusOr<std::string> text = base::ReadFile(JobFile(id));
  if (absl::IsNotFound(text.status())) {
    return absl::NotFoundError(fmt::format("no job {} in {}", id, home_.string()));
  }
  if (!text.ok()) return text.status();
  absl::StatusOr<jobspec::CustomJob> job = jobspec::ParseCustomJobJson(*text);
  if (!job.ok()) {
    return absl::DataLossError(absl::StrCat(JobFile(id).string(), ": ", job.status().message()));
  }
  return job;
}

absl::StatusOr<std::vector<HistoryEntry>> JobStore::ReadHistory(std::string_view id) const {
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(HistoryFile(id)));
  std::vector<HistoryEntry> entries;
  std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  for (const std::string& line : lines) {
    absl::StatusOr<HistoryEntry> entry = ParseHistoryLine(line);
    if (!entry.ok()) {
      return absl::DataLossError(
          absl::StrCat(HistoryFile(id).string(), ": ", entry.status().message()));
    }
    entries.push_back(*entry);
  }
  return entries;
}

absl::StatusOr<LocalJobDetails> JobStore::ReadLocalDetails(std::string_view id) const {
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(LocalFile(id)));
  absl::StatusOr<LocalJobDetails> details = ParseLocalJobDetails(text);
  if (!details.ok()) {
    return absl::DataLossError(
        absl::StrCat(LocalFile(id).string(), ": ", details.status().message()));
  }
  return details;
}

absl::StatusOr<std::vector<std::string>> JobStore::ListJobIds() const {
  std::vector<std::string> ids;
  std::error_code ec;
  std::filesystem::directory_iterator it(home_ / "jobs", ec);
  if (ec == std::errc::no_such_file_or_directory) return ids;
  if (ec) {
    return absl::InternalError(
        absl::StrCat("listing ", (home_ / "jobs").string(), ": ", ec.message()));
  }
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string id = it->path().filename().string();
    std::error_code exists_ec;
    // A directory without job.json is a job still being created.
    if (std::filesystem::exists(JobFile(id), exists_ec)) ids.push_back(std::move(id));
  }
  std::sort(ids.begin(), ids.end());
  return ids;
}

absl::StatusOr<std::vector<JobSummary>> JobStore::ListJobSummaries() const {
  std::vector<JobSummary> summaries;
  std::vector<std::string> names;
  std::error_code ec;
  std::filesystem::directory_iterator it(home_ / "jobs", ec);
  if (ec == std::errc::no_such_file_or_directory) return summaries;
  if (ec) {
    return absl::InternalError(
        absl::StrCat("listing ", (home_ / "jobs").string(), ": ", ec.message()));
  }
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    names.push_back(it->path().filename().string());
  }
  if (ec) {
    return absl::InternalError(
        absl::StrCat("listing ", (home_ / "jobs").string(), ": ", ec.message()));
  }
  const JobIndex index(home_);
  absl::StatusOr<std::vector<JobIndex::Row>> rows = index.ReadAll();
  if (absl::IsDataLoss(rows.status())) {  // a damaged index is rebuilt
    index.Discard();
    rows = index.ReadAll();
  }
  if (!rows.ok()) rows.emplace();  // no index: every job.json is read below
  std::unordered_map<std::string_view, const JobIndex::Row*> by_id;
  by_id.reserve(rows->size());
  for (const JobIndex::Row& row : *rows) by_id.emplace(row.summary.id, &row);
  std::vector<JobIndex::Repair> repairs;
  struct ToRead {
    std::string id;
    std::optional<int64_t> version;
  };
  std::vector<ToRead> to_read;
  for (std::string& name : names) {
    auto found = by_id.find(name);
    if (found == by_id.end()) {
      to_read.push_back({std::move(name), std::nullopt});
      continue;
    }
    const JobIndex::Row& row = *found->second;
    by_id.erase(found);
    if (row.stale) {
      to_read.push_back({std::move(name), row.version});
    } else {
      summaries.push_back(row.summary);
    }
  }
  // Rows left have no directory: the job was removed.
  for (const auto& [id, row] : by_id) {
    repairs.push_back({.id = std::string(id), .version = row->version, .job = nullptr});
  }
  std::vector<jobspec::CustomJob> read;
  read.reserve(to_read.size());
  for (ToRead& entry : to_read) {
    absl::StatusOr<jobspec::CustomJob> job = ReadJob(entry.id);
    // Not found: a job still being created (no job.json yet); damaged: left
    // out, as ListJobs leaves out unreadable jobs. Their rows stay as they are.
    if (!job.ok()) continue;
    summaries.push_back(SummaryOf(entry.id, *job));
    read.push_back(*std::move(job));
    repairs.push_back({.id = std::move(entry.id), .version = entry.version, .job = &read.back()});
  }
  // The list is right whether or not the repair lands; a failed one is
  // retried by the next list.
  (void)index.ApplyRepairs(repairs);
  std::sort(summaries.begin(), summaries.end(), ListsBefore);
  return summaries;
}

absl::Status JobStore::ForEachJobSummary(
    const std::optional<JobSummary>& after,
    const std::function<bool(const JobSummary&)>& visit) const {
  int64_t names = 0, name_hash_sum = 0;
  std::error_code ec;
  std::filesystem::directory_iterator it(home_ / "jobs", ec);
  if (ec == std::errc::no_such_file_or_directory) return absl::OkStatus();
  for (; !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    ++names;
    name_hash_sum += JobIndex::NameHash(it->path().filename().string());
  }
  if (!ec) {
    const JobIndex index(home_);
    absl::StatusOr<JobIndex::State> state = index.ReadState();
    if (state.ok() && state->stale == 0 && state->rows == names &&
        state->name_hash_sum == name_hash_sum) {
      return index.Scan(after, visit);
    }
  }
  TP_ASSIGN_OR_RETURN(std::vector<JobSummary> summaries, ListJobSummaries());
  for (const JobSummary& summary : summaries) {
    if (after.has_value() && !ListsBefore(*after, summary)) continue;
    if (!visit(summary)) break;
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::sdk
