#include "sdk/serve/dashboard_routes.h"

#include <fcntl.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "fmt/format.h"
#include "httplib.h"
#include "jobspec/job_state.h"
#include "sdk/hptune/tuning_job_store.h"
#include "sdk/serve/dashboard_data.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::serve {
namespace {

constexpr char kJobId[] = R"(([A-Za-z0-9_]+))";
// Lines longer than this are sent in pieces.
constexpr size_t kMaxLogLine = 64 << 10;
// A comment is sent after this much silence, so a closed page is noticed.
constexpr absl::Duration kKeepAlive = absl::Seconds(10);

// What every dashboard response carries: nothing may frame it, scripts and
// styles come from this origin only, nothing is cached or sniffed.
void SetPageHeaders(httplib::Response& res) {
  res.set_header("Content-Security-Policy",
                 "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
                 "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'none'");
  res.set_header("X-Frame-Options", "DENY");
  res.set_header("X-Content-Type-Options", "nosniff");
  res.set_header("Referrer-Policy", "no-referrer");
  res.set_header("Cache-Control", "no-store");
}

void SendJson(httplib::Response& res, const RestReply& reply) {
  SetPageHeaders(res);
  res.status = reply.status;
  res.set_content(reply.body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/json; charset=UTF-8");
}

std::string QueryParam(const httplib::Request& req, const char* name) {
  return req.has_param(name) ? req.get_param_value(name) : std::string();
}

// One log stream's position and what it has not sent yet.
struct LogStream {
  std::filesystem::path file;
  std::string id;
  uint64_t offset = 0;  // bytes of the file read
  std::string partial;  // read, not yet sent (no '\n' yet)
  absl::Time last_write = absl::Now();
  bool ended = false;
};

// "id: N\ndata: LINE\n\n" for `line` (its '\r's dropped: SSE ends a field at one).
std::string LogEvent(std::string_view line, uint64_t offset_after) {
  std::string text;
  text.reserve(line.size());
  for (char c : line) {
    if (c != '\r') text.push_back(c);
  }
  return fmt::format("id: {}\ndata: {}\n\n", offset_after, text);
}

// Reads what the file has past the stream's offset; the events for its
// whole lines (and for all of it when `flush`).
std::string ReadLogEvents(LogStream& stream, bool flush) {
  std::string events;
  const int fd = ::open(stream.file.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
  if (fd >= 0) {
    char buffer[64 << 10];
    for (int reads = 0; reads < 16; ++reads) {
      ssize_t n = ::pread(fd, buffer, sizeof(buffer), static_cast<off_t>(stream.offset));
      if (n <= 0) break;
      stream.offset += static_cast<uint64_t>(n);
      stream.partial.append(buffer, static_cast<size_t>(n));
    }
    ::close(fd);
  }
  uint64_t consumed = stream.offset - stream.partial.size();
  size_t start = 0;
  while (true) {
    size_t newline = stream.partial.find('\n', start);
    if (newline == std::string::npos) {
      if (stream.partial.size() - start < kMaxLogLine) break;
      newline = start + kMaxLogLine;  // sent in pieces
      consumed += kMaxLogLine;
      events += LogEvent(std::string_view(stream.partial).substr(start, kMaxLogLine), consumed);
      start = newline;
      continue;
    }
    consumed += newline + 1 - start;
    events += LogEvent(std::string_view(stream.partial).substr(start, newline - start), consumed);
    start = newline + 1;
  }
  stream.partial.erase(0, start);
  if (flush && !stream.partial.empty()) {
    events += LogEvent(stream.partial, stream.offset);
    stream.partial.clear();
  }
  return events;
}

}  // namespace

DashboardRoutes::DashboardRoutes(LocalJobService& service, DashboardOptions options)
    : service_(service), options_(std::move(options)), client_(JobStore(options_.home)) {}

void DashboardRoutes::AddTo(httplib::Server& server) {
  auto page = [](const httplib::Request&, httplib::Response& res) {
    SetPageHeaders(res);
    res.set_content(std::string(DashboardAsset("index.html")), "text/html; charset=UTF-8");
  };
  server.Get("/", [](const httplib::Request&, httplib::Response& res) {
    SetPageHeaders(res);
    res.status = 303;
    res.set_header("Location", "/ui/");
  });
  server.Get("/ui", page);
  server.Get("/ui/", page);
  server.Get(std::string("/ui/jobs/") + kJobId, page);
  server.Get(std::string("/ui/tuning/") + kJobId, page);
  server.Get(R"(/ui/static/(app\.js|style\.css))",
             [](const httplib::Request& req, httplib::Response& res) {
               const std::string name = req.matches[1].str();
               SetPageHeaders(res);
               res.set_content(std::string(DashboardAsset(name)),
                               name.ends_with(".js") ? "text/javascript; charset=UTF-8"
                                                     : "text/css; charset=UTF-8");
             });
  server.Get("/ui/api/jobs", [this](const httplib::Request& req, httplib::Response& res) {
    SendJson(res, DashboardJobs(client_, QueryParam(req, "filter"), QueryParam(req, "pageSize"),
                                QueryParam(req, "page")));
  });
  server.Get(std::string("/ui/api/jobs/") + kJobId,
             [this](const httplib::Request& req, httplib::Response& res) {
               SendJson(res, DashboardJob(client_, req.matches[1].str()));
             });
  server.Get(std::string("/ui/api/jobs/") + kJobId + "/scalars",
             [this](const httplib::Request& req, httplib::Response& res) {
               SendJson(res, DashboardScalars(client_, req.matches[1].str()));
             });
  server.Post(std::string("/ui/api/jobs/") + kJobId + "/cancel", [this](const httplib::Request& req,
                                                                        httplib::Response& res) {
    const std::string id = req.matches[1].str();
    absl::StatusOr<JobInfo> info = client_.ReadJob(id);
    if (!info.ok()) {
      return SendJson(
          res, {vertex::HttpStatusForCode(info.status().code()), vertex::ErrorJson(info.status())});
    }
    // Jobs serve runs are named projects/P/locations/L/customJobs/ID.
    std::vector<std::string> parts = absl::StrSplit(info->job.name, '/');
    if (parts.size() == 6 && parts[0] == "projects" && parts[5] == id) {
      return SendJson(res, service_.CancelCustomJob(parts[1], parts[3], id));
    }
    if (info->backend != "local") {
      return SendJson(res, {400, vertex::ErrorJson(absl::FailedPreconditionError(fmt::format(
                                     "job {} runs on the {} backend: cancel it with `trainpkg "
                                     "jobs cancel {}`",
                                     id, info->backend, id)))});
    }
    if (absl::Status status = client_.store().RequestCancel(id); !status.ok()) {
      return SendJson(res, {500, vertex::ErrorJson(status)});
    }
    SendJson(res, {200, nlohmann::json::object()});
  });
  server.Get(
      std::string("/ui/api/jobs/") + kJobId + R"(/logs/(workerpool[0-9]+-[0-9]+))",
      [this](const httplib::Request& req, httplib::Response& res) {
        const std::string id = req.matches[1].str();
        const std::string replica = req.matches[2].str();
        if (absl::StatusOr<JobInfo> info = client_.ReadJob(id); !info.ok()) {
          return SendJson(res, {vertex::HttpStatusForCode(info.status().code()),
                                vertex::ErrorJson(info.status())});
        }
        auto stream = std::make_shared<LogStream>();
        stream->file = client_.store().LogFile(id, replica);
        stream->id = id;
        if (!std::filesystem::exists(stream->file)) {
          return SendJson(res, {404, vertex::ErrorJson(absl::NotFoundError(fmt::format(
                                         "job {} has no log for replica {}", id, replica)))});
        }
        // A reconnecting EventSource says where it was.
        if (req.has_header("Last-Event-ID")) {
          uint64_t offset = 0;
          if (absl::SimpleAtoi(req.get_header_value("Last-Event-ID"), &offset)) {
            stream->offset = offset;
          }
        }
        if (streams_.fetch_add(1) >= options_.max_log_streams) {
          streams_.fetch_sub(1);
          return SendJson(res, {429, vertex::ErrorJson(absl::ResourceExhaustedError(fmt::format(
                                         "{} log streams are open; close a page and retry",
                                         options_.max_log_streams)))});
        }
        SetPageHeaders(res);
        res.set_chunked_content_provider(
            "text/event-stream",
            [this, stream](size_t, httplib::DataSink& sink) {
              // Terminal is read before the file, so nothing written
              // before the job ended is missed.
              absl::StatusOr<JobInfo> info = client_.ReadJob(stream->id);
              const bool terminal = !info.ok() || jobspec::IsTerminal(info->job.state);
              std::string events = ReadLogEvents(*stream, terminal);
              if (terminal) {
                events +=
                    fmt::format("event: end\ndata: {}\n\n",
                                info.ok() ? jobspec::JobStateName(info->job.state) : "UNKNOWN");
              } else if (events.empty() && absl::Now() - stream->last_write > kKeepAlive) {
                events = ": keep-alive\n\n";
              }
              if (!events.empty()) {
                if (!sink.write(events.data(), events.size())) return false;
                stream->last_write = absl::Now();
              }
              if (terminal || stopping_) {
                sink.done();
                return true;
              }
              if (events.empty()) absl::SleepFor(options_.log_poll_interval);
              return true;
            },
            [this](bool) { streams_.fetch_sub(1); });
      });
  server.Post(std::string("/ui/api/tuning/") + kJobId + "/cancel",
              [this](const httplib::Request& req, httplib::Response& res) {
                // Through the store, which the study polls, in this process or another.
                const hptune::TuningJobStore store(options_.home);
                const std::string id = req.matches[1].str();
                absl::StatusOr<jobspec::HyperparameterTuningJob> job = store.ReadJob(id);
                absl::Status status = job.status();
                if (status.ok() && !jobspec::IsTerminal(job->state)) status = store.RequestCancel(id);
                if (!status.ok()) {
                  return SendJson(
                      res, {vertex::HttpStatusForCode(status.code()), vertex::ErrorJson(status)});
                }
                SendJson(res, {200, nlohmann::json::object()});
              });
  server.Get("/ui/api/tuning", [this](const httplib::Request&, httplib::Response& res) {
    SendJson(res, DashboardTuningJobs(options_.home));
  });
  server.Get(std::string("/ui/api/tuning/") + kJobId,
             [this](const httplib::Request& req, httplib::Response& res) {
               SendJson(res, DashboardTuningJob(options_.home, req.matches[1].str()));
             });
}

}  // namespace trainpkg::sdk::serve
