// The on-disk record of local jobs, shared by every process that runs or
// inspects them:
//
//   <home>/jobs/<id>/job.json        the CustomJob as Vertex REST JSON (atomic rewrites)
//                    history.jsonl   {"state":"JOB_STATE_RUNNING","time":"..."} per change
//                    local.json      supervisor and replica processes (local_job_details.h)
//                    logs/<replica>.log  raw stdout+stderr of each replica
//                    containers/<replica>/ the runc bundle of a container-mode replica
//                    cancel_request  present once someone asked the job to stop
//                    vertex.json     jobs of the Vertex backend instead of local.json
//                                    and logs (sdk/vertex/vertex_job_record.h)
//   <home>/job_index.sqlite          what lists read instead of every job.json
//                                    (job_index.h); the files above stay the truth
//
// The records hold the jobs' environment values (API keys among them), so
// the home, jobs/ and every job directory are 0700 and every file the store
// writes 0600, whatever the process umask (replica logs too: log_pump.h).
//
// A JobStore only knows the layout; it holds no state besides the home
// path and is safe to use from any thread. Errors name the file.
#ifndef TRAINPKG_SDK_JOB_STORE_H_
#define TRAINPKG_SDK_JOB_STORE_H_

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "base/environment.h"
#include "jobspec/custom_job.h"
#include "sdk/job_index.h"
#include "sdk/local_job_details.h"

namespace trainpkg::sdk {

// $TRAINPKG_HOME, else $HOME/.trainpkg. FailedPrecondition when neither is set.
absl::StatusOr<std::filesystem::path> DefaultJobStoreHome(const base::Environment& env);

// Creates `home` (and missing parents, as the umask says) with mode 0700, or
// narrows an existing home this user owns to 0700 (one an older trainpkg
// made 0755); a home someone else owns is left as it is. The image store,
// build cache and rootfs cache under it are then private too.
// FailedPrecondition when `home` is not a directory; the filesystem's errors.
absl::Status MakeHomePrivate(const std::filesystem::path& home);

// Creates `dir` with mode exactly 0700 whatever the umask; its parent must
// exist. When it exists: AlreadyExists if `existing` is kRefuse, else it is
// narrowed to 0700 when this user owns it.
enum class ExistingDir { kRefuse, kNarrow };
absl::Status MakePrivateDir(const std::filesystem::path& dir, ExistingDir existing);

struct HistoryEntry {
  jobspec::JobState state = jobspec::JobState::kUnspecified;
  absl::Time time;
  bool operator==(const HistoryEntry&) const = default;
};

class JobStore {
 public:
  explicit JobStore(std::filesystem::path home) : home_(std::move(home)) {}

  const std::filesystem::path& home() const { return home_; }
  std::filesystem::path JobDir(std::string_view id) const;
  std::filesystem::path JobFile(std::string_view id) const;
  std::filesystem::path HistoryFile(std::string_view id) const;
  std::filesystem::path LocalFile(std::string_view id) const;
  std::filesystem::path LogDir(std::string_view id) const;
  std::filesystem::path LogFile(std::string_view id, std::string_view replica) const;
  std::filesystem::path ContainerBundleDir(std::string_view id, std::string_view replica) const;
  std::filesystem::path CancelRequestFile(std::string_view id) const;

  // Creates the job directory and its logs/ folder (0700), making the home
  // and jobs/ private first (MakeHomePrivate). AlreadyExists when the id is
  // taken; PermissionDenied/Internal when home is not writable.
  absl::Status CreateJobDir(std::string_view id) const;

  // Writes job.json and keeps the index (job_index.h) in step: its row is
  // marked stale first, so a crash between the two leaves it to be re-read.
  absl::Status WriteJob(std::string_view id, const jobspec::CustomJob& job) const;
  // Removes the job's directory (records, logs) and its index row.
  absl::Status RemoveJob(std::string_view id) const;
  absl::Status AppendHistory(std::string_view id, const HistoryEntry& entry) const;
  absl::Status WriteLocalDetails(std::string_view id, const LocalJobDetails& details) const;
  // Creates the cancel_request marker the supervisor watches.
  absl::Status RequestCancel(std::string_view id) const;
  bool CancelRequested(std::string_view id) const;

  // NotFound when the job (or the file) does not exist.
  absl::StatusOr<jobspec::CustomJob> ReadJob(std::string_view id) const;
  absl::StatusOr<std::vector<HistoryEntry>> ReadHistory(std::string_view id) const;
  absl::StatusOr<LocalJobDetails> ReadLocalDetails(std::string_view id) const;

  // Ids of every job with a job.json, sorted. An absent home is an empty list.
  absl::StatusOr<std::vector<std::string>> ListJobIds() const;

  // Every job with a job.json, in list order (ListsBefore: newest first),
  // as its index row says; no job file is read but those of jobs the index
  // does not know or holds stale (a write in progress or interrupted, a job
  // directory made by hand or by a trainpkg without the index), and the
  // index is repaired from them. Rows of directories that are gone are
  // dropped. Jobs whose job.json cannot be read are left out. When the index
  // cannot be used (damaged, unwritable) every job.json is read. An absent
  // home is an empty list.
  absl::StatusOr<std::vector<JobSummary>> ListJobSummaries() const;
  // The same summaries in the same order, those after `after` only, passed
  // to `visit` until it returns false. When the index matches the
  // directory (as many rows as names in jobs/, the same sum of their
  // NameHash, none stale) they are read from it in order, one at a time,
  // so a caller that stops early reads few rows; otherwise
  // ListJobSummaries repairs it first.
  absl::Status ForEachJobSummary(const std::optional<JobSummary>& after,
                                 const std::function<bool(const JobSummary&)>& visit) const;

 private:
  std::filesystem::path home_;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_JOB_STORE_H_
