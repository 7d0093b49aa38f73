// A SQLite index of the job store's records (<home>/job_index.sqlite), so
// that listing jobs reads one table instead of every job's job.json. The
// files stay the source of truth (docs/adr/2026-11-28-job-store-index.md):
// the index holds what lists filter and sort on, and can be deleted at any
// time; JobStore rebuilds what is missing from the files.
//
// Consistency with the files rests on a stale mark written before a record
// changes: JobStore::WriteJob calls MarkStale (which also bumps the row's
// version), writes job.json, then Update with that version. Update and
// Repair clear the mark only while the version is still theirs, so a writer
// that crashed between the two steps, or two writers racing, leave the row
// stale and the next list reads the file again.
//
// Rows are created and read by any process of this user; SQLite's locking
// (WAL, busy timeout) orders them. The file and its -wal and -shm companions
// are 0600 like every store file. Thread-safe: every call opens its own
// connection.
#ifndef TRAINPKG_SDK_JOB_INDEX_H_
#define TRAINPKG_SDK_JOB_INDEX_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::sdk {

// What the index keeps of a job: its id and a CustomJob with only name,
// display_name, state, create_time, update_time and labels set (what list
// filters read).
struct JobSummary {
  std::string id;
  jobspec::CustomJob job;
};

// The summary fields of `job` (the rest left empty).
JobSummary SummaryOf(std::string_view id, const jobspec::CustomJob& job);

// List order: newest create time first, then the greater id first; a job
// without a create time sorts last.
bool ListsBefore(const JobSummary& a, const JobSummary& b);

class JobIndex {
 public:
  static constexpr int kSchemaVersion = 2;

  // 32-bit FNV-1a of a job id: rows keep it, so a lister compares the sum
  // over the directory names with the index's in one query.
  static uint32_t NameHash(std::string_view id);

  // The index of the store under `home` (home must exist before a write).
  explicit JobIndex(std::filesystem::path home) : path_(std::move(home) / "job_index.sqlite") {}

  const std::filesystem::path& path() const { return path_; }

  struct Row {
    JobSummary summary;  // fields empty while the row has never been filled
    int64_t version = 0;
    bool stale = false;
  };

  // What JobStore does to change a job's record, on one connection: marks
  // `id`'s row stale, runs `change` (which writes or removes the job's
  // files), then fills the row from `job` (nullptr: drops the row) if the
  // version is still the one it marked. When the index cannot be marked it
  // is discarded (the next list rebuilds it) and `change` runs all the same.
  // Returns what `change` returns.
  absl::Status Change(std::string_view id, const jobspec::CustomJob* job,
                      const std::function<absl::Status()>& change) const;

  // Marks `id`'s row stale (creating it) and returns its new version.
  absl::StatusOr<int64_t> MarkStale(std::string_view id) const;
  // Fills `id`'s row from `job` and clears the mark, if its version is still
  // `version` (else the row stays stale).
  absl::Status Update(std::string_view id, int64_t version, const jobspec::CustomJob& job) const;
  // Every row, unordered.
  absl::StatusOr<std::vector<Row>> ReadAll() const;
  struct State {
    int64_t rows = 0;
    int64_t name_hash_sum = 0;  // of NameHash over the rows' ids
    int64_t stale = 0;          // rows marked stale
  };
  absl::StatusOr<State> ReadState() const;
  // The rows in list order (ListsBefore), those after `after` only, until
  // `visit` returns false. Stale rows are passed as they are: callers scan
  // only an index without any (ReadState).
  absl::Status Scan(const std::optional<JobSummary>& after,
                    const std::function<bool(const JobSummary&)>& visit) const;
  // Rows read again from the files by a lister: each fills its row if the
  // row's version is still the one read (or inserts it when `version` is
  // nullopt and there is no row), in one transaction.
  struct Repair {
    std::string id;
    std::optional<int64_t> version;
    const jobspec::CustomJob* job = nullptr;  // nullptr: the job is gone, drop the row
  };
  absl::Status ApplyRepairs(const std::vector<Repair>& repairs) const;
  // Removes the index (and its -wal, -shm files): the next list rebuilds it.
  void Discard() const;

 private:
  std::filesystem::path path_;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_JOB_INDEX_H_
