#include "sdk/serve/job_http_server.h"

#include <arpa/inet.h>

#include <thread>

#include "base/log.h"
#include "fmt/format.h"
#include "httplib.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::serve {
namespace {

constexpr char kParent[] = R"(/v1/projects/([^/]+)/locations/([^/]+)/customJobs)";
constexpr char kTuningParent[] =
    R"(/v1/projects/([^/]+)/locations/([^/]+)/hyperparameterTuningJobs)";

void Send(httplib::Response& res, const RestReply& reply) {
  res.status = reply.status;
  res.set_content(reply.body.dump(2) + "\n", "application/json; charset=UTF-8");
}

std::string Param(const httplib::Request& req, const char* name) {
  return req.has_param(name) ? req.get_param_value(name) : std::string();
}

}  // namespace

bool IsLoopbackHost(const std::string& host) {
  if (host == "localhost" || host == "::1") return true;
  in_addr address{};
  return inet_pton(AF_INET, host.c_str(), &address) == 1 && (ntohl(address.s_addr) >> 24) == 127;
}

class JobHttpServer::Impl {
 public:
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

void JobHttpServer::Stop() {
  impl_->server.stop();
  if (impl_->thread.joinable()) impl_->thread.join();
}

absl::StatusOr<std::unique_ptr<JobHttpServer>> JobHttpServer::Start(LocalJobService& service,
                                                                    const std::string& host,
                                                                    int port) {
  return Start(service, nullptr, host, port);
}

absl::StatusOr<std::unique_ptr<JobHttpServer>> JobHttpServer::Start(LocalJobService& service,
                                                                    LocalTuningJobService* tuning,
                                                                    const std::string& host,
                                                                    int port) {
  if (!IsLoopbackHost(host)) {
    return absl::InvalidArgumentError(fmt::format(
        "--host {}: the job service runs executables for anyone who can reach it and has no "
        "authentication; listen on a loopback address (127.0.0.1, ::1, localhost)",
        host));
  }
  auto impl = std::make_unique<Impl>();
  httplib::Server& server = impl->server;
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
  server.set_error_handler([](const httplib::Request& req, httplib::Response& res) {
    if (!res.body.empty()) return;
    absl::Status status =
        res.status == 404
            ? absl::NotFoundError(fmt::format("{} {}: no such resource; this service serves "
                                              "/v1/projects/*/locations/*/customJobs[/*[:cancel]]",
                                              req.method, req.path))
            : absl::Status(absl::StatusCode::kUnknown, fmt::format("HTTP {}", res.status));
    res.set_content(vertex::ErrorJson(status).dump(2) + "\n", "application/json; charset=UTF-8");
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
  int bound =
      port == 0 ? server.bind_to_any_port(host) : (server.bind_to_port(host, port) ? port : -1);
  if (bound <= 0) {
    return absl::UnavailableError(fmt::format("cannot listen on {}:{}", host, port));
  }
  impl->thread = std::thread([&server] { server.listen_after_bind(); });
  return std::unique_ptr<JobHttpServer>(new JobHttpServer(std::move(impl), host, bound));
}

}  // namespace trainpkg::sdk::serve
