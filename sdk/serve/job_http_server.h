// `trainpkg serve`'s HTTP side: cpp-httplib routes for Vertex AI REST v1
// customJobs onto a LocalJobService.
//   POST   /v1/projects/{p}/locations/{l}/customJobs            create
//   GET    /v1/projects/{p}/locations/{l}/customJobs            list (filter, pageSize, pageToken)
//   GET    /v1/projects/{p}/locations/{l}/customJobs/{id}       get
//   DELETE /v1/projects/{p}/locations/{l}/customJobs/{id}       delete
//   POST   /v1/projects/{p}/locations/{l}/customJobs/{id}:cancel
// and, when a LocalTuningJobService is given, the same create/list/get and
// :cancel under /v1/projects/{p}/locations/{l}/hyperparameterTuningJobs.
// Any other path is a 404 google.rpc.Status. Authorization headers are
// accepted and not checked: the server only listens on loopback addresses.
#ifndef TRAINPKG_SDK_SERVE_JOB_HTTP_SERVER_H_
#define TRAINPKG_SDK_SERVE_JOB_HTTP_SERVER_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "sdk/serve/local_job_service.h"
#include "sdk/serve/local_tuning_job_service.h"

namespace trainpkg::sdk::serve {

// True for 127.0.0.0/8, ::1 and "localhost".
bool IsLoopbackHost(const std::string& host);

class JobHttpServer {
 public:
  // Listens on host:port (port 0: a free one) and serves on background
  // threads. InvalidArgument for a host that is not loopback, Unavailable
  // when the address cannot be bound. `service` must outlive the server.
  static absl::StatusOr<std::unique_ptr<JobHttpServer>> Start(LocalJobService& service,
                                                              const std::string& host, int port);
  // Also serves hyperparameterTuningJobs from `tuning` (nullptr: not served),
  // which must outlive the server.
  static absl::StatusOr<std::unique_ptr<JobHttpServer>> Start(LocalJobService& service,
                                                              LocalTuningJobService* tuning,
                                                              const std::string& host, int port);
  ~JobHttpServer();  // Stop()

  int port() const { return port_; }
  // "http://<host>:<port>"
  std::string endpoint() const;
  // Stops accepting, finishes requests in flight and joins the threads.
  void Stop();

 private:
  class Impl;
  JobHttpServer(std::unique_ptr<Impl> impl, std::string host, int port);

  std::unique_ptr<Impl> impl_;
  const std::string host_;
  const int port_;
};

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_JOB_HTTP_SERVER_H_
