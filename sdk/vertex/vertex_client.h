// A client for Vertex AI's REST v1 job service (google-cloud-cpp's
// JobServiceClient, over REST/JSON): projects.locations.customJobs and
// projects.locations.hyperparameterTuningJobs create / get / list / cancel /
// delete.
//
//   VertexClient client({.endpoint = VertexEndpointFor("us-central1"),
//                        .transport = transport, .credentials = credentials});
//   auto job = client.CreateCustomJob(LocationName("my-project", "us-central1"), spec);
//
// Requests go to "<endpoint>/v1/<resource>" with "Authorization: Bearer
// <token>". Get and List are idempotent (a RetryTransport below retries
// them); Create, Cancel and Delete are not. Errors: the credentials' error,
// the transport's, or the service's google.rpc.Status as an absl::Status with
// the same code and "<what>: HTTP <n> <STATUS>: <message>" (rpc_error.h);
// InvalidArgument when a 2xx reply is not the expected JSON.
//
// HyperparameterTuningJobs are carried as JSON documents: only name, state
// and error are read.
#ifndef TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_H_
#define TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_H_

#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "base/clock.h"
#include "http/http_transport.h"
#include "jobspec/custom_job.h"
#include "nlohmann/json.hpp"
#include "sdk/auth/credentials.h"

namespace trainpkg::sdk::vertex {

// "https://<location>-aiplatform.googleapis.com".
std::string VertexEndpointFor(std::string_view location);
// "projects/<project>/locations/<location>".
std::string LocationName(std::string_view project, std::string_view location);

struct VertexClientOptions {
  // Scheme and authority, no path: "https://us-central1-aiplatform.googleapis.com",
  // or "http://127.0.0.1:PORT" for `trainpkg serve`.
  std::string endpoint;
  std::shared_ptr<http::HttpTransport> transport;      // required
  std::shared_ptr<auth::Credentials> credentials;      // required
  base::Clock* clock = nullptr;  // token expiry; nullptr: base::RealClock(). Not owned.
};

struct ListRequest {
  // Vertex's list filter, e.g. `state="JOB_STATE_SUCCEEDED" AND display_name:"a*"`.
  std::string filter;
  int page_size = 0;  // 0: the service's default
  std::string page_token;
};

struct CustomJobPage {
  std::vector<jobspec::CustomJob> jobs;
  std::string next_page_token;  // "" on the last page
};

struct HyperparameterTuningJobDocument {
  std::string name;
  jobspec::JobState state = jobspec::JobState::kUnspecified;
  std::optional<jobspec::RpcStatus> error;
  nlohmann::json json;  // the whole resource
};

struct HyperparameterTuningJobPage {
  std::vector<HyperparameterTuningJobDocument> jobs;
  std::string next_page_token;
};

// Thread-safe when its transport and credentials are.
class VertexClient {
 public:
  explicit VertexClient(VertexClientOptions options);

  const std::string& endpoint() const { return options_.endpoint; }

  // `parent` is "projects/<p>/locations/<l>"; the returned job carries the
  // server-assigned name.
  absl::StatusOr<jobspec::CustomJob> CreateCustomJob(std::string_view parent,
                                                     const jobspec::CustomJob& job);
  absl::StatusOr<jobspec::CustomJob> GetCustomJob(std::string_view name);
  absl::StatusOr<CustomJobPage> ListCustomJobs(std::string_view parent, const ListRequest& request);
  // Every page of ListCustomJobs (request.page_token is the first page's).
  absl::StatusOr<std::vector<jobspec::CustomJob>> ListAllCustomJobs(std::string_view parent,
                                                                    ListRequest request);
  // Best effort and asynchronous, as on Vertex: the job moves to CANCELLING
  // and later CANCELLED.
  absl::Status CancelCustomJob(std::string_view name);
  // The google.longrunning.Operation the service returns.
  absl::StatusOr<nlohmann::json> DeleteCustomJob(std::string_view name);

  absl::StatusOr<HyperparameterTuningJobDocument> CreateHyperparameterTuningJob(
      std::string_view parent, const nlohmann::json& job);
  absl::StatusOr<HyperparameterTuningJobDocument> GetHyperparameterTuningJob(std::string_view name);
  absl::StatusOr<HyperparameterTuningJobPage> ListHyperparameterTuningJobs(
      std::string_view parent, const ListRequest& request);
  absl::Status CancelHyperparameterTuningJob(std::string_view name);
  absl::StatusOr<nlohmann::json> DeleteHyperparameterTuningJob(std::string_view name);

 private:
  // Sends and returns the 2xx reply's JSON ({} for an empty body).
  absl::StatusOr<nlohmann::json> Call(std::string_view method, std::string_view path,
                                      std::string_view query, const nlohmann::json* body,
                                      bool idempotent, std::string_view what);

  const VertexClientOptions options_;
};

// The HPT document fields this SDK reads. InvalidArgument when `json` is not
// an object or its state/error do not parse.
absl::StatusOr<HyperparameterTuningJobDocument> HyperparameterTuningJobFromJson(
    nlohmann::json json);

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_H_
