// `trainpkg serve`'s HTTP side: cpp-httplib routes for Vertex AI REST v1
// customJobs onto a LocalJobService.
//   POST   /v1/projects/{p}/locations/{l}/customJobs            create
//   GET    /v1/projects/{p}/locations/{l}/customJobs            list (filter, pageSize, pageToken)
//   GET    /v1/projects/{p}/locations/{l}/customJobs/{id}       get
//   DELETE /v1/projects/{p}/locations/{l}/customJobs/{id}       delete
//   POST   /v1/projects/{p}/locations/{l}/customJobs/{id}:cancel
// and, when a LocalTuningJobService is given, the same create/list/get and
// :cancel under /v1/projects/{p}/locations/{l}/hyperparameterTuningJobs.
// With a dashboard home, also the dashboard's pages and data under / and
// /ui/ (dashboard_routes.h). Any other path is a 404 google.rpc.Status.
//
// Only loopback addresses are served, and every request must pass the
// RequestGuard (request_guard.h): this server's Host, no foreign Origin, the
// instance's bearer token (or, for the dashboard, the page cookie that
// GET /ui/?token=<token> sets), no Content-Encoding, at most max_body_bytes of
// application/json. Refused requests are answered before their body is read.
// Connections carry one request each (no keep-alive) and a connection that
// sends nothing is dropped after a few seconds, so idle connections cannot
// hold the worker threads for long.
#ifndef TRAINPKG_SDK_SERVE_JOB_HTTP_SERVER_H_
#define TRAINPKG_SDK_SERVE_JOB_HTTP_SERVER_H_

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "sdk/serve/local_job_service.h"
#include "sdk/serve/local_tuning_job_service.h"

namespace trainpkg::sdk::serve {

struct JobHttpServerOptions {
  std::string host = "127.0.0.1";  // a loopback address
  int port = 0;                    // 0: a free one
  std::string token;               // required: the bearer token every request must carry
  // The trainpkg home under which clients find the token file
  // (sdk/vertex/local_serve_token.h); named in 401 replies. "": not named.
  std::filesystem::path token_home;
  size_t max_body_bytes = 1 << 20;
  // The job store home the dashboard reads; "": no dashboard.
  std::filesystem::path dashboard_home;
};

class JobHttpServer {
 public:
  // Listens on options.host:port and serves customJobs from `service` and
  // hyperparameterTuningJobs from `tuning` (nullptr: not served) on
  // background threads; both must outlive the server. InvalidArgument for a
  // host that is not loopback or a token that is not IsWellFormedServeToken,
  // Unavailable when the address cannot be bound.
  static absl::StatusOr<std::unique_ptr<JobHttpServer>> Start(LocalJobService& service,
                                                              LocalTuningJobService* tuning,
                                                              const JobHttpServerOptions& options);
  ~JobHttpServer();  // Stop()

  int port() const { return port_; }
  // "http://<host>:<port>"
  std::string endpoint() const;
  // The dashboard's first URL, "<endpoint>/ui/?token=<token>"; "" without
  // a dashboard.
  std::string dashboard_url() const;
  // Stops accepting, finishes requests in flight and joins the threads.
  void Stop();

 private:
  class Impl;
  JobHttpServer(std::unique_ptr<Impl> impl, std::string host, int port);

  std::unique_ptr<Impl> impl_;
  std::string dashboard_url_;
  const std::string host_;
  const int port_;
};

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_JOB_HTTP_SERVER_H_
