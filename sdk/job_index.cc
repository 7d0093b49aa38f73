#include "sdk/job_index.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <memory>
#include <system_error>

#include "absl/strings/str_cat.h"
#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk {
namespace {

constexpr char kSchema[] =
    "CREATE TABLE IF NOT EXISTS jobs("
    "  id TEXT PRIMARY KEY NOT NULL,"
    "  version INTEGER NOT NULL,"
    "  stale INTEGER NOT NULL,"
    "  name TEXT NOT NULL DEFAULT '',"
    "  display_name TEXT NOT NULL DEFAULT '',"
    "  state INTEGER NOT NULL DEFAULT 0,"
    "  create_nanos INTEGER,"
    "  update_nanos INTEGER,"
    "  labels TEXT NOT NULL DEFAULT '{}',"
    "  name_hash INTEGER NOT NULL DEFAULT 0) WITHOUT ROWID;"
    "CREATE INDEX IF NOT EXISTS jobs_order ON jobs(create_nanos DESC, id DESC);";

struct DbCloser {
  void operator()(sqlite3* db) const { sqlite3_close_v2(db); }
};
using Db = std::unique_ptr<sqlite3, DbCloser>;
struct StatementFinalizer {
  void operator()(sqlite3_stmt* statement) const { sqlite3_finalize(statement); }
};
using Statement = std::unique_ptr<sqlite3_stmt, StatementFinalizer>;

absl::Status SqliteError(sqlite3* db, int code, std::string_view what,
                         const std::filesystem::path& path) {
  std::string message = fmt::format("job index {}: {}: {}", path.string(), what,
                                    db != nullptr ? sqlite3_errmsg(db) : sqlite3_errstr(code));
  const int primary = code & 0xff;
  if (primary == SQLITE_CORRUPT || primary == SQLITE_NOTADB) return absl::DataLossError(message);
  if (primary == SQLITE_BUSY || primary == SQLITE_LOCKED) return absl::UnavailableError(message);
  return absl::InternalError(message);
}

class Connection {
 public:
  static absl::StatusOr<Connection> Open(const std::filesystem::path& path) {
    // Created 0600 before SQLite sees it: SQLite gives its -wal and -shm
    // files the database file's mode.
    const int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
    if (fd < 0) return base::ErrnoToStatus(errno, absl::StrCat("opening ", path.string()));
    const int chmod_result = ::fchmod(fd, 0600);
    const int chmod_errno = errno;
    ::close(fd);
    if (chmod_result != 0) {
      return base::ErrnoToStatus(chmod_errno, absl::StrCat("making ", path.string(), " private"));
    }
    sqlite3* raw = nullptr;
    const int code =
        sqlite3_open_v2(path.c_str(), &raw, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    Connection connection(Db(raw), path);
    if (code != SQLITE_OK) return SqliteError(raw, code, "opening", path);
    sqlite3_busy_timeout(raw, 10000);
    // Every call opens and closes its own connection: a checkpoint at each
    // close (SQLite's default for the last connection) would fsync the
    // database on every job write. The WAL is checkpointed as it grows
    // instead (every 1,000 pages, at a commit), and survives the close.
    sqlite3_db_config(raw, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, nullptr);
    TP_RETURN_IF_ERROR(connection.Exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"));
    TP_ASSIGN_OR_RETURN(int64_t schema, connection.UserVersion());
    if (schema != JobIndex::kSchemaVersion) {
      // A new file or another schema: (re)created under the write lock,
      // checked again there (another process may have done it meanwhile);
      // listers fill it from the files.
      TP_RETURN_IF_ERROR(connection.Exec("BEGIN IMMEDIATE;"));
      absl::StatusOr<int64_t> locked = connection.UserVersion();
      if (!locked.ok()) {
        (void)connection.Exec("ROLLBACK;");
        return locked.status();
      }
      if (*locked != JobIndex::kSchemaVersion) {
        TP_RETURN_IF_ERROR(
            connection.Exec(fmt::format("DROP TABLE IF EXISTS jobs; {} "
                                        "PRAGMA user_version={};",
                                        kSchema, JobIndex::kSchemaVersion)));
      }
      TP_RETURN_IF_ERROR(connection.Exec("COMMIT;"));
    }
    return connection;
  }

  absl::Status Exec(const std::string& sql) {
    const int code = sqlite3_exec(db_.get(), sql.c_str(), nullptr, nullptr, nullptr);
    if (code != SQLITE_OK) {
      absl::Status status = SqliteError(db_.get(), code, "executing", path_);
      sqlite3_exec(db_.get(), "ROLLBACK;", nullptr, nullptr, nullptr);
      return status;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<Statement> Prepare(std::string_view sql) {
    sqlite3_stmt* raw = nullptr;
    const int code =
        sqlite3_prepare_v2(db_.get(), sql.data(), static_cast<int>(sql.size()), &raw, nullptr);
    Statement statement(raw);
    if (code != SQLITE_OK) return SqliteError(db_.get(), code, "preparing a statement", path_);
    return statement;
  }

  // Steps a statement that returns no rows (or ignores them).
  absl::Status Run(sqlite3_stmt* statement) {
    int code;
    while ((code = sqlite3_step(statement)) == SQLITE_ROW) {
    }
    if (code != SQLITE_DONE) return SqliteError(db_.get(), code, "writing", path_);
    return absl::OkStatus();
  }

  absl::Status StepError(int code) { return SqliteError(db_.get(), code, "reading", path_); }

 private:
  Connection(Db db, std::filesystem::path path) : db_(std::move(db)), path_(std::move(path)) {}

  absl::StatusOr<int64_t> UserVersion() {
    TP_ASSIGN_OR_RETURN(Statement statement, Prepare("PRAGMA user_version;"));
    const int code = sqlite3_step(statement.get());
    if (code != SQLITE_ROW) return StepError(code);
    return sqlite3_column_int64(statement.get(), 0);
  }

  Db db_;
  std::filesystem::path path_;
};

void BindText(sqlite3_stmt* statement, int index, std::string_view text) {
  sqlite3_bind_text(statement, index, text.data(), static_cast<int>(text.size()), SQLITE_TRANSIENT);
}

void BindTime(sqlite3_stmt* statement, int index, const std::optional<absl::Time>& time) {
  if (time.has_value()) {
    sqlite3_bind_int64(statement, index, absl::ToUnixNanos(*time));
  } else {
    sqlite3_bind_null(statement, index);
  }
}

std::string ColumnText(sqlite3_stmt* statement, int column) {
  const unsigned char* text = sqlite3_column_text(statement, column);
  return text == nullptr
             ? std::string()
             : std::string(reinterpret_cast<const char*>(text),
                           static_cast<size_t>(sqlite3_column_bytes(statement, column)));
}

std::optional<absl::Time> ColumnTime(sqlite3_stmt* statement, int column) {
  if (sqlite3_column_type(statement, column) == SQLITE_NULL) return std::nullopt;
  return absl::FromUnixNanos(sqlite3_column_int64(statement, column));
}

std::string LabelsJson(const std::map<std::string, std::string>& labels) {
  return nlohmann::json(labels).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

// Binds ?1 id, ?2 version and the summary fields ?3..?8 of `job`.
void BindSummary(sqlite3_stmt* statement, std::string_view id, int64_t version,
                 const jobspec::CustomJob& job) {
  BindText(statement, 1, id);
  sqlite3_bind_int64(statement, 2, version);
  BindText(statement, 3, job.name);
  BindText(statement, 4, job.display_name);
  sqlite3_bind_int(statement, 5, static_cast<int>(job.state));
  BindTime(statement, 6, job.create_time);
  BindTime(statement, 7, job.update_time);
  BindText(statement, 8, LabelsJson(job.labels));
}

constexpr char kSummaryColumns[] =
    "id, name, display_name, state, create_nanos, update_nanos, labels";

// Reads kSummaryColumns (columns 0..6); false when the labels do not parse.
bool ReadSummaryColumns(sqlite3_stmt* s, JobSummary& summary) {
  summary.id = ColumnText(s, 0);
  summary.job.name = ColumnText(s, 1);
  summary.job.display_name = ColumnText(s, 2);
  summary.job.state = static_cast<jobspec::JobState>(sqlite3_column_int(s, 3));
  summary.job.create_time = ColumnTime(s, 4);
  summary.job.update_time = ColumnTime(s, 5);
  const std::string labels = ColumnText(s, 6);
  if (labels == "{}") return true;
  nlohmann::json json = base::ParseJson(labels).value_or(nlohmann::json());
  if (!json.is_object()) return false;
  for (const auto& [key, value] : json.items()) {
    if (value.is_string()) summary.job.labels[key] = value.get<std::string>();
  }
  return true;
}

constexpr char kUpdateIfVersion[] =
    "UPDATE jobs SET stale=0, name=?3, display_name=?4, state=?5, create_nanos=?6, "
    "update_nanos=?7, labels=?8 WHERE id=?1 AND version=?2;";

absl::StatusOr<int64_t> MarkStaleOn(Connection& db, std::string_view id) {
  TP_ASSIGN_OR_RETURN(
      Statement statement,
      db.Prepare("INSERT INTO jobs(id, version, stale, name_hash) VALUES(?1, 1, 1, ?2) ON "
                 "CONFLICT(id) DO UPDATE SET stale=1, version=version+1 RETURNING version;"));
  BindText(statement.get(), 1, id);
  sqlite3_bind_int64(statement.get(), 2, JobIndex::NameHash(id));
  const int code = sqlite3_step(statement.get());
  if (code != SQLITE_ROW) return db.StepError(code);
  const int64_t version = sqlite3_column_int64(statement.get(), 0);
  TP_RETURN_IF_ERROR(db.Run(statement.get()));
  return version;
}

absl::Status UpdateOn(Connection& db, std::string_view id, int64_t version,
                      const jobspec::CustomJob* job) {
  if (job == nullptr) {
    TP_ASSIGN_OR_RETURN(Statement statement,
                        db.Prepare("DELETE FROM jobs WHERE id=?1 AND version=?2;"));
    BindText(statement.get(), 1, id);
    sqlite3_bind_int64(statement.get(), 2, version);
    return db.Run(statement.get());
  }
  TP_ASSIGN_OR_RETURN(Statement statement, db.Prepare(kUpdateIfVersion));
  BindSummary(statement.get(), id, version, *job);
  return db.Run(statement.get());
}

}  // namespace

JobSummary SummaryOf(std::string_view id, const jobspec::CustomJob& job) {
  JobSummary summary{.id = std::string(id), .job = {}};
  summary.job.name = job.name;
  summary.job.display_name = job.display_name;
  summary.job.state = job.state;
  summary.job.create_time = job.create_time;
  summary.job.update_time = job.update_time;
  summary.job.labels = job.labels;
  return summary;
}

bool ListsBefore(const JobSummary& a, const JobSummary& b) {
  const absl::Time ta = a.job.create_time.value_or(absl::InfinitePast());
  const absl::Time tb = b.job.create_time.value_or(absl::InfinitePast());
  if (ta != tb) return ta > tb;
  return a.id > b.id;
}

absl::Status JobIndex::Change(std::string_view id, const jobspec::CustomJob* job,
                              const std::function<absl::Status()>& change) const {
  absl::StatusOr<Connection> db = Connection::Open(path_);
  absl::StatusOr<int64_t> version =
      db.ok() ? MarkStaleOn(*db, id) : absl::StatusOr<int64_t>(db.status());
  // An index that cannot be marked could end up wrong: without it, the next
  // list rebuilds one from the files.
  if (!version.ok()) Discard();
  TP_RETURN_IF_ERROR(change());
  // A failed update leaves the row stale: the next list reads the files.
  if (version.ok()) (void)UpdateOn(*db, id, *version, job);
  return absl::OkStatus();
}

absl::StatusOr<int64_t> JobIndex::MarkStale(std::string_view id) const {
  TP_ASSIGN_OR_RETURN(Connection db, Connection::Open(path_));
  return MarkStaleOn(db, id);
}

absl::Status JobIndex::Update(std::string_view id, int64_t version,
                              const jobspec::CustomJob& job) const {
  TP_ASSIGN_OR_RETURN(Connection db, Connection::Open(path_));
  return UpdateOn(db, id, version, &job);
}

absl::StatusOr<std::vector<JobIndex::Row>> JobIndex::ReadAll() const {
  TP_ASSIGN_OR_RETURN(Connection db, Connection::Open(path_));
  TP_ASSIGN_OR_RETURN(Statement statement, db.Prepare(absl::StrCat("SELECT ", kSummaryColumns,
                                                                   ", version, stale "
                                                                   "FROM jobs;")));
  std::vector<Row> rows;
  int code;
  while ((code = sqlite3_step(statement.get())) == SQLITE_ROW) {
    Row row;
    const bool labels_ok = ReadSummaryColumns(statement.get(), row.summary);
    row.version = sqlite3_column_int64(statement.get(), 7);
    // Unreadable labels: the row is read from its file again.
    row.stale = sqlite3_column_int(statement.get(), 8) != 0 || !labels_ok;
    rows.push_back(std::move(row));
  }
  if (code != SQLITE_DONE) return db.StepError(code);
  return rows;
}

absl::StatusOr<JobIndex::State> JobIndex::ReadState() const {
  TP_ASSIGN_OR_RETURN(Connection db, Connection::Open(path_));
  TP_ASSIGN_OR_RETURN(
      Statement statement,
      db.Prepare("SELECT COUNT(*), COALESCE(SUM(name_hash), 0), COALESCE(SUM(stale), 0) "
                 "FROM jobs;"));
  const int code = sqlite3_step(statement.get());
  if (code != SQLITE_ROW) return db.StepError(code);
  return State{.rows = sqlite3_column_int64(statement.get(), 0),
               .name_hash_sum = sqlite3_column_int64(statement.get(), 1),
               .stale = sqlite3_column_int64(statement.get(), 2)};
}

absl::Status JobIndex::Scan(const std::optional<JobSummary>& after,
                            const std::function<bool(const JobSummary&)>& visit) const {
  TP_ASSIGN_OR_RETURN(Connection db, Connection::Open(path_));
  // List order: newest create time first, ties by id descending; no create
  // time (NULL) last, as ListsBefore.
  std::string where;
  if (after.has_value()) {
    where = after->job.create_time.has_value()
                ? " WHERE create_nanos < ?1 OR (create_nanos = ?1 AND id < ?2) OR "
                  "create_nanos IS NULL"
                : " WHERE create_nanos IS NULL AND id < ?2";
  }
  TP_ASSIGN_OR_RETURN(Statement statement,
                      db.Prepare(absl::StrCat("SELECT ", kSummaryColumns, " FROM jobs", where,
                                              " ORDER BY create_nanos DESC, id DESC;")));
  if (after.has_value()) {
    BindTime(statement.get(), 1, after->job.create_time);
    BindText(statement.get(), 2, after->id);
  }
  int code;
  while ((code = sqlite3_step(statement.get())) == SQLITE_ROW) {
    JobSummary summary;
    ReadSummaryColumns(statement.get(), summary);
    if (!visit(summary)) return absl::OkStatus();
  }
  if (code != SQLITE_DONE) return db.StepError(code);
  return absl::OkStatus();
}

uint32_t JobIndex::NameHash(std::string_view id) {
  uint32_t hash = 2166136261u;
  for (unsigned char c : id) {
    hash ^= c;
    hash *= 16777619u;
  }
  return hash;
}

absl::Status JobIndex::ApplyRepairs(const std::vector<Repair>& repairs) const {
  if (repairs.empty()) return absl::OkStatus();
  TP_ASSIGN_OR_RETURN(Connection db, Connection::Open(path_));
  TP_ASSIGN_OR_RETURN(Statement update, db.Prepare(kUpdateIfVersion));
  TP_ASSIGN_OR_RETURN(
      Statement insert,
      db.Prepare("INSERT INTO jobs(id, version, stale, name, display_name, state, create_nanos, "
                 "update_nanos, labels, name_hash) VALUES(?1, ?2, 0, ?3, ?4, ?5, ?6, ?7, ?8, ?9) "
                 "ON CONFLICT(id) DO NOTHING;"));
  TP_ASSIGN_OR_RETURN(Statement remove, db.Prepare("DELETE FROM jobs WHERE id=?1 AND version=?2;"));
  TP_RETURN_IF_ERROR(db.Exec("BEGIN IMMEDIATE;"));
  for (const Repair& repair : repairs) {
    sqlite3_stmt* statement = nullptr;
    if (repair.job == nullptr) {
      if (!repair.version.has_value()) continue;
      statement = remove.get();
      BindText(statement, 1, repair.id);
      sqlite3_bind_int64(statement, 2, *repair.version);
    } else {
      statement = repair.version.has_value() ? update.get() : insert.get();
      BindSummary(statement, repair.id, repair.version.value_or(0), *repair.job);
      if (!repair.version.has_value()) sqlite3_bind_int64(statement, 9, NameHash(repair.id));
    }
    absl::Status status = db.Run(statement);
    sqlite3_reset(statement);
    sqlite3_clear_bindings(statement);
    if (!status.ok()) {
      (void)db.Exec("ROLLBACK;");
      return status;
    }
  }
  return db.Exec("COMMIT;");
}

void JobIndex::Discard() const {
  std::error_code ec;
  for (const char* suffix : {"", "-wal", "-shm"}) {
    std::filesystem::remove(path_.string() + suffix, ec);
  }
}

}  // namespace trainpkg::sdk
