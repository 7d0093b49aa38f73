#include "sdk/k8s/k8s_client.h"

#include <map>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "http/status_code.h"
#include "sdk/internal/json_request.h"
#include "sdk/internal/percent_encoding.h"
#include "sdk/k8s/internal/json_text.h"

namespace trainpkg::sdk::k8s {
namespace {

using internal::Text;

using Json = nlohmann::json;

std::string ObjectPath(const ObjectRef& ref) {
  return absl::StrCat(CollectionPath(ref), "/", ref.name);
}

std::string Describe(const ObjectRef& ref) {
  return absl::StrCat(ref.kind, " ", ref.kubernetes_namespace, "/", ref.name);
}

}  // namespace

std::string CollectionPath(const ObjectRef& ref) {
  // The core group ("v1") lives under /api, every named group under /apis.
  const bool core = ref.api_version.find('/') == std::string::npos;
  // Lower-case kind + "s" is the plural of every kind trainpkg sends (pods,
  // secrets, jobsets, tfjobs, pytorchjobs), not of every kind there is.
  return absl::StrCat(core ? "/api/" : "/apis/", ref.api_version, "/namespaces/",
                      ref.kubernetes_namespace, "/", absl::AsciiStrToLower(ref.kind), "s");
}

absl::Status StatusFromKubernetesReply(int http_status, std::string_view body,
                                       std::string_view what) {
  // The Status object's reason is finer than the HTTP status: 409 is
  // AlreadyExists or Conflict.
  static const std::map<std::string, absl::StatusCode> kReasons = {
      {"AlreadyExists", absl::StatusCode::kAlreadyExists},
      {"NotFound", absl::StatusCode::kNotFound},
      {"Invalid", absl::StatusCode::kInvalidArgument},
      {"BadRequest", absl::StatusCode::kInvalidArgument},
      {"Forbidden", absl::StatusCode::kPermissionDenied},
      {"Unauthorized", absl::StatusCode::kUnauthenticated},
      {"Conflict", absl::StatusCode::kAborted},
  };
  Json reply = base::ParseJson(body).value_or(Json::value_t::discarded);
  std::string reason;
  std::string message;
  if (reply.is_object() && Text(reply, "kind") == "Status") {
    reason = Text(reply, "reason");
    message = Text(reply, "message");
  } else {
    message = std::string(body.substr(0, 200));
  }
  auto known = kReasons.find(reason);
  absl::StatusCode code =
      known != kReasons.end() ? known->second : http::CodeForHttpStatus(http_status, http::ServerErrors::kAsGoogleApis);
  return absl::Status(code, fmt::format("{}: HTTP {}{}{}: {}", what, http_status,
                                        reason.empty() ? "" : " ", reason, message));
}

K8sClient::K8sClient(K8sClientOptions options) : options_(std::move(options)) {}

absl::StatusOr<std::string> K8sClient::Call(std::string_view method, std::string_view path,
                                            std::string_view query, const Json* body,
                                            bool idempotent, std::string_view what) {
  std::string url = fmt::format("{}{}", options_.server, path);
  if (!query.empty()) url += fmt::format("?{}", query);
  TP_ASSIGN_OR_RETURN(
      http::HttpResponse response,
      sdk::internal::SendJsonRequest(*options_.transport, method, url,
                                     options_.token.empty() ? "" : "Bearer " + options_.token, body,
                                     idempotent, what));
  if (response.status < 200 || response.status >= 300) {
    return StatusFromKubernetesReply(response.status, response.body, what);
  }
  return std::move(response.body);
}

absl::StatusOr<Json> K8sClient::CallJson(std::string_view method, std::string_view path,
                                         std::string_view query, const Json* body, bool idempotent,
                                         std::string_view what) {
  TP_ASSIGN_OR_RETURN(std::string text, Call(method, path, query, body, idempotent, what));
  Json reply = base::ParseJson(text).value_or(Json::value_t::discarded);
  if (reply.is_discarded() || !reply.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: the reply is not a JSON object: {}", what, text.substr(0, 200)));
  }
  return reply;
}

absl::StatusOr<Json> K8sClient::Create(const Json& object) {
  ObjectRef ref;
  if (object.is_object()) {
    ref = {.api_version = Text(object, "apiVersion"),
           .kind = Text(object, "kind"),
           .kubernetes_namespace =
               object.contains("metadata") ? Text(object["metadata"], "namespace") : "",
           .name = object.contains("metadata") ? Text(object["metadata"], "name") : ""};
  }
  for (const auto& [field, value] :
       {std::pair{"apiVersion", &ref.api_version}, std::pair{"kind", &ref.kind},
        std::pair{"metadata.namespace", &ref.kubernetes_namespace},
        std::pair{"metadata.name", &ref.name}}) {
    if (value->empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("creating an object: ", field, " is required"));
    }
  }
  return CallJson("POST", CollectionPath(ref), "", &object, /*idempotent=*/false,
                  absl::StrCat("creating ", Describe(ref)));
}

absl::StatusOr<Json> K8sClient::Get(const ObjectRef& ref) {
  return CallJson("GET", ObjectPath(ref), "", nullptr, /*idempotent=*/true,
                  absl::StrCat("getting ", Describe(ref)));
}

absl::Status K8sClient::Delete(const ObjectRef& ref) {
  // Background: what the workload owns (its Jobs and pods) goes too; some
  // kinds (batch/v1 Job) orphan their pods by default.
  return CallJson("DELETE", ObjectPath(ref), "propagationPolicy=Background", nullptr,
                  /*idempotent=*/false, absl::StrCat("deleting ", Describe(ref)))
      .status();
}

absl::StatusOr<std::vector<Json>> K8sClient::ListPods(std::string_view kubernetes_namespace,
                                                      std::string_view label_selector) {
  ObjectRef pods{.api_version = "v1",
                 .kind = "Pod",
                 .kubernetes_namespace = std::string(kubernetes_namespace),
                 .name = ""};
  TP_ASSIGN_OR_RETURN(
      Json list,
      CallJson("GET", CollectionPath(pods),
               sdk::internal::EncodeQuery({{"labelSelector", std::string(label_selector)}}),
               nullptr, /*idempotent=*/true,
               fmt::format("listing pods {} in {}", label_selector, kubernetes_namespace)));
  std::vector<Json> items;
  if (list.contains("items") && list["items"].is_array()) {
    for (Json& item : list["items"]) items.push_back(std::move(item));
  }
  return items;
}

absl::StatusOr<std::string> K8sClient::ReadPodLog(std::string_view kubernetes_namespace,
                                                  std::string_view pod,
                                                  std::string_view container) {
  ObjectRef ref{.api_version = "v1",
                .kind = "Pod",
                .kubernetes_namespace = std::string(kubernetes_namespace),
                .name = std::string(pod)};
  return Call("GET", absl::StrCat(ObjectPath(ref), "/log"),
              sdk::internal::EncodeQuery({{"container", std::string(container)}}), nullptr,
              /*idempotent=*/true, fmt::format("reading the log of pod {}", pod));
}

}  // namespace trainpkg::sdk::k8s
