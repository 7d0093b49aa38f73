// A client for the Kubernetes API server's REST interface, the few calls a
// training job needs: create an object, get it, delete it (background
// propagation, so its Jobs and pods go too), list pods by label and read a
// pod's log.
//
//   K8sClient client({.server = "https://127.0.0.1:6443", .transport = t, .token = "..."});
//   auto created = client.Create(manifests.workload);
//
// Paths follow the API's layout: core kinds (apiVersion "v1") under
// /api/v1/namespaces/<ns>/<plural>, others under
// /apis/<group>/<version>/namespaces/<ns>/<plural>, the plural being the
// lowercased kind plus "s" (secrets, services, pods, jobsets, tfjobs,
// pytorchjobs). Requests carry "Authorization: Bearer <token>" when a token
// is set; TLS trust and client certificates are the transport's
// (k8s_client_factory.h). Get, List and log reads are idempotent (retried by
// a RetryTransport below); Create and Delete are not.
//
// Errors: the transport's, or the server's reply as a Status whose code
// follows its metav1.Status reason (AlreadyExists, NotFound, Invalid ->
// InvalidArgument, Forbidden -> PermissionDenied, Unauthorized ->
// Unauthenticated, Conflict -> Aborted; else by HTTP status) and whose
// message is "<what>: HTTP <n> <reason>: <message>". InvalidArgument when a
// 2xx reply is not a JSON object.
#ifndef TRAINPKG_SDK_K8S_K8S_CLIENT_H_
#define TRAINPKG_SDK_K8S_K8S_CLIENT_H_

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "http/http_transport.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::k8s {

struct K8sClientOptions {
  std::string server{};                                  // "https://host:port", no trailing '/'
  std::shared_ptr<http::HttpTransport> transport{};      // required
  std::string token{};                                   // "" : none sent
};

// A namespaced object's address.
struct ObjectRef {
  std::string api_version{};  // "v1", "jobset.x-k8s.io/v1alpha2"
  std::string kind{};         // "JobSet"
  std::string kubernetes_namespace{};
  std::string name{};
};

// The collection path of `ref` ("/apis/jobset.x-k8s.io/v1alpha2/namespaces/ns/jobsets").
std::string CollectionPath(const ObjectRef& ref);

// The error an API server reply stands for; see the header comment.
absl::Status StatusFromKubernetesReply(int http_status, std::string_view body,
                                       std::string_view what);

// Thread-safe when its transport is.
class K8sClient {
 public:
  explicit K8sClient(K8sClientOptions options);

  const std::string& server() const { return options_.server; }

  // POSTs `object` to the collection its apiVersion, kind and
  // metadata.namespace name; returns the object as stored.
  // InvalidArgument when one of those fields is missing.
  absl::StatusOr<nlohmann::json> Create(const nlohmann::json& object);
  absl::StatusOr<nlohmann::json> Get(const ObjectRef& ref);
  // Asks for deletion with propagationPolicy=Background; the object may
  // linger while finalizers run.
  absl::Status Delete(const ObjectRef& ref);
  // The pods of `kubernetes_namespace` matching a label selector ("a=b").
  absl::StatusOr<std::vector<nlohmann::json>> ListPods(std::string_view kubernetes_namespace,
                                                       std::string_view label_selector);
  // The log of one container of a pod (the whole log, as text).
  absl::StatusOr<std::string> ReadPodLog(std::string_view kubernetes_namespace,
                                         std::string_view pod, std::string_view container);

 private:
  // Sends and returns the 2xx reply's body.
  absl::StatusOr<std::string> Call(std::string_view method, std::string_view path,
                                   std::string_view query, const nlohmann::json* body,
                                   bool idempotent, std::string_view what);
  absl::StatusOr<nlohmann::json> CallJson(std::string_view method, std::string_view path,
                                          std::string_view query, const nlohmann::json* body,
                                          bool idempotent, std::string_view what);

  const K8sClientOptions options_;
};

}  // namespace trainpkg::sdk::k8s

#endif  // TRAINPKG_SDK_K8S_K8S_CLIENT_H_
