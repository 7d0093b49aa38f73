#include "sdk/job_logs.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/cluster_env.h"
#include "jobspec/job_state.h"

namespace trainpkg::sdk {
namespace {

struct LogSource {
  std::string replica;
  std::filesystem::path file;
  off_t offset = 0;
  std::string pending;  // bytes after the last '\n'
};

// Bytes of `path` from `offset` on; "" when the file does not exist yet.
absl::StatusOr<std::string> ReadFrom(const std::filesystem::path& path, off_t offset) {
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0 && errno == ENOENT) return std::string();
  if (fd < 0) return base::ErrnoToStatus(errno, absl::StrCat("opening ", path.string()));
  std::string out;
  char buf[65536];
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof(buf), offset + static_cast<off_t>(out.size()));
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return base::ErrnoToStatus(err, absl::StrCat("reading ", path.string()));
    }
    if (n == 0) break;
    out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

// Every replica the job spec asks for, in pool order.
std::vector<std::string> ReplicaNames(const jobspec::CustomJobSpec& spec) {
  std::vector<std::string> names;
  for (size_t pool = 0; pool < spec.worker_pool_specs.size(); ++pool) {
    for (int64_t i = 0; i < spec.worker_pool_specs[pool].replica_count; ++i) {
      names.push_back(jobspec::ReplicaRef{.pool = static_cast<int>(pool), .index = i}.Name());
    }
  }
  return names;
}

void Emit(LogSource& source, std::string_view prefix, bool flush_partial, std::ostream& out) {
  size_t start = 0;
  for (size_t nl; (nl = source.pending.find('\n', start)) != std::string::npos; start = nl + 1) {
    out << prefix << std::string_view(source.pending).substr(start, nl + 1 - start);
  }
  source.pending.erase(0, start);
  if (flush_partial && !source.pending.empty()) {
    out << prefix << source.pending << '\n';
    source.pending.clear();
  }
}

}  // namespace

absl::Status WriteJobLogs(const JobClient& client, std::string_view id,
                          const JobLogsOptions& options, std::ostream& out) {
  TP_ASSIGN_OR_RETURN(JobInfo info, client.GetJob(id));
  std::vector<std::string> names = ReplicaNames(info.job.job_spec);
  if (!options.replica.empty()) {
    if (std::find(names.begin(), names.end(), options.replica) == names.end()) {
      return absl::NotFoundError(fmt::format("job {} has no replica {}; its replicas are {}", id,
                                             options.replica, absl::StrJoin(names, ", ")));
    }
    names = {options.replica};
  }
  std::vector<LogSource> sources;
  for (std::string& name : names) {
    std::filesystem::path file = client.store().LogFile(id, name);
    sources.push_back(
        LogSource{.replica = std::move(name), .file = std::move(file), .offset = 0, .pending = ""});
  }
  for (;;) {
    // The state is read before the files, so once it is terminal this last
    // pass sees everything the replicas wrote.
    bool last_pass = !options.follow || jobspec::IsTerminal(info.job.state);
    for (LogSource& source : sources) {
      TP_ASSIGN_OR_RETURN(std::string data, ReadFrom(source.file, source.offset));
      source.offset += static_cast<off_t>(data.size());
      source.pending += data;
      std::string prefix = options.replica.empty() ? absl::StrCat("[", source.replica, "] ") : "";
      Emit(source, prefix, last_pass, out);
    }
    out.flush();
    if (last_pass) return absl::OkStatus();
    std::this_thread::sleep_for(absl::ToChronoMilliseconds(options.poll_interval));
    TP_ASSIGN_OR_RETURN(info, client.GetJob(id));
  }
}

}  // namespace trainpkg::sdk
