#include "sdk/serve/job_http_server.h"

#include <sys/socket.h>

#include <thread>
#include <vector>

#include "base/log.h"
#include "fmt/format.h"
#include "httplib.h"
#include "sdk/serve/dashboard_routes.h"
#include "sdk/serve/request_guard.h"
#include "sdk/serve/serve_token_file.h"
#include "sdk/vertex/local_serve_token.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::serve {
namespace {

constexpr char kParent[] = R"(/v1/projects/([^/]+)/locations/([^/]+)/customJobs)";
constexpr char kTuningParent[] =
    R"(/v1/projects/([^/]+)/locations/([^/]+)/hyperparameterTuningJobs)";

// Worker threads: each connection holds one while it is open, so enough
// that many idle connections still leave some free; an idle connection is
// dropped after kIdleSeconds.
constexpr size_t kWorkerThreads = 128;
constexpr time_t kIdleSeconds = 2;
constexpr time_t kReadWriteSeconds = 5;

void Send(httplib::Response& res, const RestReply& reply) {
  res.status = reply.status;
  res.set_content(reply.body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                  "application/json; charset=UTF-8");
}

std::string Param(const httplib::Request& req, const char* name) {
  return req.has_param(name) ? req.get_param_value(name) : std::string();
}

}  // namespace

class JobHttpServer::Impl {
 public:
  std::unique_ptr<RequestGuard> guard;
  std::unique_ptr<DashboardRoutes> dashboard;
  httplib::Server server;
  std::thread thread;
};

JobHttpServer::JobHttpServer(std::unique_ptr<Impl> impl, std::string host, int port)
    : impl_(std::move(impl)), host_(std::move(host)), port_(port) {}

JobHttpServer::~JobHttpServer() { Stop(); }

std::string JobHttpServer::endpoint() const {
  return host_.find(':') != std::string::npos ? fmt::format("http://[{}]:{}", host_, port_)
                                              : fmt::format("http://{}:{}", host_, port_);
}

std::string JobHttpServer::dashboard_url() const { return dashboard_url_; }

void JobHttpServer::Stop() {
  if (impl_->dashboard != nullptr) impl_->dashboard->Stop();
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

absl::StatusOr<std::unique_ptr<JobHttpServer>> JobHttpServer::Start(
    LocalJobService& service, LocalTuningJobService* tuning, const JobHttpServerOptions& options) {
  const std::string& host = options.host;
  if (!vertex::IsLoopbackHost(host)) {
    return absl::InvalidArgumentError(fmt::format(
        "--host {}: the job service runs executables for whoever holds its token; listen on a "
        "loopback address (127.0.0.1, ::1, localhost)",
        host));
  }
  if (!vertex::IsWellFormedServeToken(options.token)) {
    return absl::InvalidArgumentError(
        "the job service's token must be 32 to 512 characters of A-Z a-z 0-9 - _");
  }
  auto impl = std::make_unique<Impl>();
  httplib::Server& server = impl->server;
  server.new_task_queue = [] { return new httplib::ThreadPool(kWorkerThreads); };
  // One request per connection: a connection holds a worker thread while it
  // is open, and a client cannot keep one for itself.
  server.set_keep_alive_max_count(1);
  server.set_keep_alive_timeout(kIdleSeconds);
  server.set_read_timeout(kReadWriteSeconds, 0);
  server.set_write_timeout(kReadWriteSeconds, 0);
  server.set_payload_max_length(options.max_body_bytes);
  // cpp-httplib 0.11 (Debian's, compiled) listens with a backlog of 5: 50
  // clients connecting at once overflowed it, and the dropped SYNs came back
  // after the kernel's 1 s retransmit (bench/scale: p99 ~1.2 s, a reset).
  // Its socket-options hook sees the listening socket, which is listened on
  // again below with the system's maximum backlog.
  socket_t listening = -1;
  server.set_socket_options([&listening](socket_t sock) {
    httplib::default_socket_options(sock);
    listening = sock;
  });
  int bound = options.port == 0 ? server.bind_to_any_port(host)
                                : (server.bind_to_port(host, options.port) ? options.port : -1);
  if (bound <= 0) {
    return absl::UnavailableError(fmt::format("cannot listen on {}:{}", host, options.port));
  }
  if (listening >= 0 && ::listen(listening, SOMAXCONN) != 0) {
    return absl::UnavailableError(
        fmt::format("cannot listen on {}:{} with a backlog of {}", host, bound, SOMAXCONN));
  }
  std::string hint;
  if (!options.token_home.empty()) {
    hint = fmt::format("a client on this machine finds it in {}",
                       vertex::LocalServeTokenPath(options.token_home, host, bound).string());
  }
  std::string page_secret;
  if (!options.dashboard_home.empty()) {
    // Its own secret, not the token: the cookie a browser sends to every
    // port of this host opens only the dashboard.
    absl::StatusOr<std::string> secret = GenerateServeToken();
    if (!secret.ok()) return secret.status();
    page_secret = *std::move(secret);
  }
  impl->guard =
      std::make_unique<RequestGuard>(RequestGuardOptions{.host = host,
                                                         .port = bound,
                                                         .token = options.token,
                                                         .page_secret = std::move(page_secret),
                                                         .max_body_bytes = options.max_body_bytes,
                                                         .token_hint = std::move(hint)});
  auto headers_of = [](const httplib::Request& req) {
    return [&req](std::string_view name) {
      std::vector<std::string> values;
      auto [begin, end] = req.headers.equal_range(std::string(name));
      for (auto it = begin; it != end; ++it) values.push_back(it->second);
      return values;
    };
  };
  // Fills `res` with the refusal when the guard refuses the request.
  auto refused = [guard = impl->guard.get(), headers_of](const httplib::Request& req,
                                                          httplib::Response& res) {
    std::optional<RestReply> reply;
    if (!guard->options().page_secret.empty() && req.method == "GET" && IsDashboardPath(req.path) &&
        req.has_param("token")) {
      // The dashboard's first URL: the token becomes the page cookie, and
      // the browser is sent on to the URL without it.
      reply = guard->CheckPageToken(headers_of(req), req.get_param_value("token"));
      if (!reply.has_value()) {
        res.status = 303;
        res.set_header("Set-Cookie", guard->PageCookie());
        // Back to the page asked for, when it is plainly one of ours.
        const bool plain = req.path.find("..") == std::string::npos &&
                           req.path.find("//") == std::string::npos &&
                           req.path.find('\\') == std::string::npos;
        res.set_header("Location", plain ? req.path : std::string("/ui/"));
        res.set_header("Cache-Control", "no-store");
        res.set_header("Referrer-Policy", "no-referrer");
        return true;
      }
    } else {
      reply = guard->Check(headers_of(req), {.method = req.method, .path = req.path});
    }
    if (!reply.has_value()) return false;
    // RFC 7235: a 401 must say which scheme it wants.
    if (reply->status == 401) {
      res.set_header("WWW-Authenticate", R"(Bearer realm="trainpkg serve")");
    }
    Send(res, *reply);
    return true;
  };
  if (!options.dashboard_home.empty()) {
    impl->dashboard =
        std::make_unique<DashboardRoutes>(service, DashboardOptions{.home = options.dashboard_home});
    impl->dashboard->AddTo(server);
  }
  // A client that waits for "100 Continue" gets the refusal instead and
  // never sends the body.
  server.set_expect_100_continue_handler(
      [refused](const httplib::Request& req, httplib::Response& res) {
        return refused(req, res) ? res.status : 100;
      });
  server.set_pre_routing_handler([refused](const httplib::Request& req, httplib::Response& res) {
    return refused(req, res) ? httplib::Server::HandlerResponse::Handled
                             : httplib::Server::HandlerResponse::Unhandled;
  });
  // Ids are one path segment of these characters only: no '/' or '.' reaches
  // the job store's directory names.
  const std::string id = R"(/([A-Za-z0-9_]+))";
  server.Post(kParent, [&service](const httplib::Request& req, httplib::Response& res) {
    Send(res, service.CreateCustomJob(req.matches[1].str(), req.matches[2].str(), req.body));
  });
  server.Get(kParent, [&service](const httplib::Request& req, httplib::Response& res) {
    Send(res,
         service.ListCustomJobs(req.matches[1].str(), req.matches[2].str(), Param(req, "filter"),
                                Param(req, "pageSize"), Param(req, "pageToken")));
  });
  server.Get(kParent + id, [&service](const httplib::Request& req, httplib::Response& res) {
    Send(res,
         service.GetCustomJob(req.matches[1].str(), req.matches[2].str(), req.matches[3].str()));
  });
  server.Delete(kParent + id, [&service](const httplib::Request& req, httplib::Response& res) {
    Send(res,
         service.DeleteCustomJob(req.matches[1].str(), req.matches[2].str(), req.matches[3].str()));
  });
  server.Post(kParent + id + ":cancel",
              [&service](const httplib::Request& req, httplib::Response& res) {
                Send(res, service.CancelCustomJob(req.matches[1].str(), req.matches[2].str(),
                                                  req.matches[3].str()));
              });
  if (tuning != nullptr) {
    server.Post(kTuningParent, [tuning](const httplib::Request& req, httplib::Response& res) {
      Send(res, tuning->Create(req.matches[1].str(), req.matches[2].str(), req.body));
    });
    server.Get(kTuningParent, [tuning](const httplib::Request& req, httplib::Response& res) {
      Send(res, tuning->List(req.matches[1].str(), req.matches[2].str()));
    });
    server.Get(kTuningParent + id, [tuning](const httplib::Request& req, httplib::Response& res) {
      Send(res, tuning->Get(req.matches[1].str(), req.matches[2].str(), req.matches[3].str()));
    });
    server.Post(kTuningParent + id + ":cancel", [tuning](const httplib::Request& req,
                                                         httplib::Response& res) {
      Send(res, tuning->Cancel(req.matches[1].str(), req.matches[2].str(), req.matches[3].str()));
    });
  }
  server.set_error_handler(
      [max = options.max_body_bytes](const httplib::Request& req, httplib::Response& res) {
        if (!res.body.empty()) return;
        absl::Status status;
        if (res.status == 404) {
          status = absl::NotFoundError(fmt::format(
              "{} {}: no such resource; this service serves "
              "/v1/projects/*/locations/*/customJobs[/*[:cancel]] and hyperparameterTuningJobs, "
              "and the dashboard under /ui/",
              req.method, req.path));
        } else if (res.status == 413) {
          status = absl::InvalidArgumentError(
              fmt::format("the request body is larger than this service accepts ({} bytes)", max));
        } else {
          status = absl::Status(absl::StatusCode::kUnknown, fmt::format("HTTP {}", res.status));
        }
        nlohmann::json body = vertex::ErrorJson(status);
        body["error"]["code"] = res.status;
        res.set_content(body.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n",
                        "application/json; charset=UTF-8");
      });
  server.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr error) {
        std::string what = "unknown exception";
        try {
          std::rethrow_exception(error);
        } catch (const std::exception& e) {
          what = e.what();
        }
        Send(res, RestReply{500, vertex::ErrorJson(absl::InternalError(what))});
      });
  server.set_logger([](const httplib::Request& req, const httplib::Response& res) {
    TP_LOG(INFO, "{} {} -> {}", req.method, req.path, res.status);
  });
  const bool dashboard = impl->dashboard != nullptr;
  impl->thread = std::thread([&server] { server.listen_after_bind(); });
  std::unique_ptr<JobHttpServer> started(new JobHttpServer(std::move(impl), host, bound));
  if (dashboard) {
    started->dashboard_url_ = fmt::format("{}/ui/?token={}", started->endpoint(), options.token);
  }
  return started;
}

}  // namespace trainpkg::sdk::serve
