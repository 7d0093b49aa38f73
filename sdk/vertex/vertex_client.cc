#include "sdk/vertex/vertex_client.h"

#include "absl/strings/match.h"
#include "base/json_parse.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"
#include "sdk/internal/json_request.h"
#include "sdk/internal/percent_encoding.h"
#include "sdk/vertex/rpc_error.h"

namespace trainpkg::sdk::vertex {
namespace {

std::string ListQuery(const ListRequest& request) {
  std::vector<std::pair<std::string, std::string>> fields;
  if (!request.filter.empty()) fields.emplace_back("filter", request.filter);
  if (request.page_size > 0) fields.emplace_back("pageSize", std::to_string(request.page_size));
  if (!request.page_token.empty()) fields.emplace_back("pageToken", request.page_token);
  return sdk::internal::EncodeQuery(fields);
}

std::string NextPageToken(const nlohmann::json& json) {
  auto it = json.find("nextPageToken");
  return it != json.end() && it->is_string() ? it->get<std::string>() : std::string();
}

absl::StatusOr<jobspec::CustomJob> JobFromReply(const nlohmann::json& json, std::string_view what) {
  absl::StatusOr<jobspec::CustomJob> job = jobspec::CustomJobFromJson(json);
  if (!job.ok()) {
    return absl::InvalidArgumentError(fmt::format("{}: the reply is not a CustomJob: {}", what,
                                                  std::string(job.status().message())));
  }
  return job;
}

}  // namespace

std::string VertexEndpointFor(std::string_view location) {
  return fmt::format("https://{}-aiplatform.googleapis.com", location);
}

std::string LocationName(std::string_view project, std::string_view location) {
  return fmt::format("projects/{}/locations/{}", project, location);
}

VertexClient::VertexClient(VertexClientOptions options) : options_(std::move(options)) {}

absl::StatusOr<nlohmann::json> VertexClient::Call(std::string_view method, std::string_view path,
                                                  std::string_view query,
                                                  const nlohmann::json* body, bool idempotent,
                                                  std::string_view what) {
  base::Clock& clock = options_.clock != nullptr ? *options_.clock : base::RealClock();
  absl::StatusOr<auth::AccessToken> token = options_.credentials->GetToken(clock.Now());
  if (!token.ok()) {
    return base::WithContext(token.status(), fmt::format("{}: getting credentials ({})", what,
                                                         options_.credentials->Describe()));
  }
  std::string url = fmt::format("{}/v1/{}", options_.endpoint, path);
  if (!query.empty()) url += fmt::format("?{}", query);
  TP_ASSIGN_OR_RETURN(http::HttpResponse response,
                      sdk::internal::SendJsonRequest(*options_.transport, method, url,
                                                     auth::AuthorizationHeaderValue(*token), body,
                                                     idempotent, what));
  if (response.status < 200 || response.status >= 300) {
    return StatusFromErrorReply(response.status, response.body, what);
  }
  if (response.body.empty()) return nlohmann::json::object();
  nlohmann::json json = base::ParseJson(response.body).value_or(nlohmann::json::value_t::discarded);
  if (json.is_discarded() || !json.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: the reply from {} is not a JSON object", what, url));
  }
  return json;
}

absl::StatusOr<jobspec::CustomJob> VertexClient::CreateCustomJob(std::string_view parent,
                                                                 const jobspec::CustomJob& job) {
  std::string what = fmt::format("creating a CustomJob in {}", parent);
  jobspec::CustomJob request = job;  // output-only fields are not sent
  request.name.clear();
  request.state = jobspec::JobState::kUnspecified;
  request.create_time = request.start_time = request.end_time = request.update_time = std::nullopt;
  request.error.reset();
  request.web_access_uris.clear();
  nlohmann::json body = jobspec::CustomJobToJson(request);
  // Not idempotent: a retry after a lost reply would create a second job.
  TP_ASSIGN_OR_RETURN(nlohmann::json reply, Call("POST", fmt::format("{}/customJobs", parent), "",
                                                 &body, /*idempotent=*/false, what));
  return JobFromReply(reply, what);
}

absl::StatusOr<jobspec::CustomJob> VertexClient::GetCustomJob(std::string_view name) {
  std::string what = fmt::format("getting {}", name);
  TP_ASSIGN_OR_RETURN(nlohmann::json reply, Call("GET", name, "", nullptr, true, what));
  return JobFromReply(reply, what);
}

absl::StatusOr<CustomJobPage> VertexClient::ListCustomJobs(std::string_view parent,
                                                           const ListRequest& request) {
  std::string what = fmt::format("listing the CustomJobs of {}", parent);
  TP_ASSIGN_OR_RETURN(nlohmann::json reply, Call("GET", fmt::format("{}/customJobs", parent),
                                                 ListQuery(request), nullptr, true, what));
  CustomJobPage page;
  page.next_page_token = NextPageToken(reply);
  if (auto it = reply.find("customJobs"); it != reply.end()) {
    if (!it->is_array()) return absl::InvalidArgumentError(what + ": customJobs is not a list");
    for (const nlohmann::json& item : *it) {
      TP_ASSIGN_OR_RETURN(jobspec::CustomJob job, JobFromReply(item, what));
      page.jobs.push_back(std::move(job));
    }
  }
  return page;
}

absl::StatusOr<std::vector<jobspec::CustomJob>> VertexClient::ListAllCustomJobs(
    std::string_view parent, ListRequest request) {
  std::vector<jobspec::CustomJob> jobs;
  while (true) {
    TP_ASSIGN_OR_RETURN(CustomJobPage page, ListCustomJobs(parent, request));
    for (jobspec::CustomJob& job : page.jobs) jobs.push_back(std::move(job));
    if (page.next_page_token.empty()) return jobs;
    request.page_token = page.next_page_token;
  }
}

absl::Status VertexClient::CancelCustomJob(std::string_view name) {
  // The :cancel method's body is its request message, which has no fields
  // besides the name in the path: an empty object.
  nlohmann::json body = nlohmann::json::object();
  return Call("POST", fmt::format("{}:cancel", name), "", &body, false,
              fmt::format("cancelling {}", name))
      .status();
}

absl::StatusOr<nlohmann::json> VertexClient::DeleteCustomJob(std::string_view name) {
  return Call("DELETE", name, "", nullptr, false, fmt::format("deleting {}", name));
}

absl::StatusOr<HyperparameterTuningJobDocument> HyperparameterTuningJobFromJson(
    nlohmann::json json) {
  if (!json.is_object()) {
    return absl::InvalidArgumentError("a HyperparameterTuningJob must be a JSON object");
  }
  HyperparameterTuningJobDocument doc;
  if (auto it = json.find("name"); it != json.end() && it->is_string()) {
    doc.name = it->get<std::string>();
  }
  if (auto it = json.find("state"); it != json.end()) {
    // proto3 JSON: a parser accepts an enum as its name or its number.
    absl::StatusOr<jobspec::JobState> state =
        it->is_number_integer() ? jobspec::JobStateFromNumber(it->get<int>())
        : it->is_string()       ? jobspec::ParseJobState(it->get<std::string>())
                                : absl::InvalidArgumentError("not a string or number");
    if (!state.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("state: {}", std::string(state.status().message())));
    }
    doc.state = *state;
  }
  if (auto it = json.find("error"); it != json.end()) {
    if (!it->is_object()) return absl::InvalidArgumentError("error: not an object");
    jobspec::RpcStatus error;
    if (auto code = it->find("code"); code != it->end() && code->is_number_integer()) {
      error.code = code->get<int32_t>();
    }
    if (auto message = it->find("message"); message != it->end() && message->is_string()) {
      error.message = message->get<std::string>();
    }
    doc.error = std::move(error);
  }
  doc.json = std::move(json);
  return doc;
}

absl::StatusOr<HyperparameterTuningJobDocument> VertexClient::CreateHyperparameterTuningJob(
    std::string_view parent, const nlohmann::json& job) {
  std::string what = fmt::format("creating a HyperparameterTuningJob in {}", parent);
  TP_ASSIGN_OR_RETURN(
      nlohmann::json reply,
      Call("POST", fmt::format("{}/hyperparameterTuningJobs", parent), "", &job, false, what));
  return HyperparameterTuningJobFromJson(std::move(reply));
}

absl::StatusOr<HyperparameterTuningJobDocument> VertexClient::GetHyperparameterTuningJob(
    std::string_view name) {
  TP_ASSIGN_OR_RETURN(nlohmann::json reply,
                      Call("GET", name, "", nullptr, true, fmt::format("getting {}", name)));
  return HyperparameterTuningJobFromJson(std::move(reply));
}

absl::StatusOr<HyperparameterTuningJobPage> VertexClient::ListHyperparameterTuningJobs(
    std::string_view parent, const ListRequest& request) {
  std::string what = fmt::format("listing the HyperparameterTuningJobs of {}", parent);
  TP_ASSIGN_OR_RETURN(nlohmann::json reply,
                      Call("GET", fmt::format("{}/hyperparameterTuningJobs", parent),
                           ListQuery(request), nullptr, true, what));
  HyperparameterTuningJobPage page;
  page.next_page_token = NextPageToken(reply);
  if (auto it = reply.find("hyperparameterTuningJobs"); it != reply.end()) {
    if (!it->is_array()) {
      return absl::InvalidArgumentError(what + ": hyperparameterTuningJobs is not a list");
    }
    for (const nlohmann::json& item : *it) {
      TP_ASSIGN_OR_RETURN(HyperparameterTuningJobDocument doc,
                          HyperparameterTuningJobFromJson(item));
      page.jobs.push_back(std::move(doc));
    }
  }
  return page;
}

absl::Status VertexClient::CancelHyperparameterTuningJob(std::string_view name) {
  nlohmann::json body = nlohmann::json::object();
  return Call("POST", fmt::format("{}:cancel", name), "", &body, false,
              fmt::format("cancelling {}", name))
      .status();
}

absl::StatusOr<nlohmann::json> VertexClient::DeleteHyperparameterTuningJob(std::string_view name) {
  return Call("DELETE", name, "", nullptr, false, fmt::format("deleting {}", name));
}

}  // namespace trainpkg::sdk::vertex
