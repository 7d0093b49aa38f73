#include "sdk/k8s/kubeconfig.h"

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "base/bounded_file.h"
#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "jobspec/job_file.h"
#include "nlohmann/json.hpp"
#include "sdk/k8s/internal/json_text.h"

namespace trainpkg::sdk::k8s {
namespace {

using internal::Text;

// Tokens, certificates and keys are a few KiB; a kubeconfig itself rarely
// passes 100 KiB. A path naming /dev/zero or a FIFO must end with an error.
constexpr size_t kMaxCredentialFileBytes = size_t{1} << 20;
constexpr size_t kMaxKubeconfigBytes = size_t{16} << 20;

using Json = nlohmann::json;

// The entry of list `key` ("clusters") called `name`, or InvalidArgument.
absl::StatusOr<Json> Named(const Json& config, const char* key, const std::string& name,
                           const char* member) {
  if (config.contains(key) && config[key].is_array()) {
    for (const Json& entry : config[key]) {
      if (entry.is_object() && Text(entry, "name") == name) {
        if (!entry.contains(member) || !entry[member].is_object()) {
          return absl::InvalidArgumentError(
              absl::StrCat(key, "[", name, "].", member, ": required, a mapping"));
        }
        return entry[member];
      }
    }
  }
  return absl::InvalidArgumentError(absl::StrCat(key, ": no entry named \"", name, "\""));
}

// "<key>-data" (base64) or "<key>" (a file path); "" when neither is set.
absl::StatusOr<std::string> Pem(const Json& object, const std::string& key,
                                const std::filesystem::path& base_dir, const std::string& field) {
  std::string data = Text(object, (key + "-data").c_str());
  if (!data.empty()) {
    std::string decoded;
    if (!absl::Base64Unescape(data, &decoded)) {
      return absl::InvalidArgumentError(absl::StrCat(field, ".", key, "-data: not base64"));
    }
    return decoded;
  }
  std::string file = Text(object, key.c_str());
  if (file.empty()) return std::string();
  std::filesystem::path path(file);
  // kubectl's rule: a relative path is relative to the kubeconfig's directory.
  if (path.is_relative()) path = base_dir / path;
  absl::StatusOr<std::string> content = base::ReadRegularFile(
      path, base::BoundedReadOptions{.max_bytes = kMaxCredentialFileBytes, .what = "a PEM file"});
  if (!content.ok()) {
    return base::WithContext(content.status(), absl::StrCat(field, ".", key));
  }
  return content;
}

}  // namespace

absl::StatusOr<std::filesystem::path> KubeconfigPath(const base::Environment& env) {
  if (std::optional<std::string> list = env.Get("KUBECONFIG"); list.has_value() && !list->empty()) {
    std::vector<std::string> paths = absl::StrSplit(*list, ':', absl::SkipEmpty());
    // Only the first file of the list is read; kubectl merges them all.
    if (!paths.empty()) return std::filesystem::path(paths.front());
  }
  if (std::optional<std::string> home = env.Get("HOME"); home.has_value() && !home->empty()) {
    return std::filesystem::path(*home) / ".kube" / "config";
  }
  return absl::FailedPreconditionError(
      "no kubeconfig: neither KUBECONFIG nor HOME is set; pass --kubeconfig");
}

absl::StatusOr<ClusterAccess> ParseKubeconfig(std::string_view text,
                                              const std::filesystem::path& base_dir,
                                              std::string_view context) {
  TP_ASSIGN_OR_RETURN(Json config, jobspec::YamlToJson(text));
  if (!config.is_object()) return absl::InvalidArgumentError("not a kubeconfig: not a mapping");
  ClusterAccess access;
  access.context = context.empty() ? Text(config, "current-context") : std::string(context);
  if (access.context.empty()) {
    return absl::InvalidArgumentError("current-context: not set; name a context (--context)");
  }
  TP_ASSIGN_OR_RETURN(Json ctx, Named(config, "contexts", access.context, "context"));
  const std::string cluster_name = Text(ctx, "cluster");
  const std::string user_name = Text(ctx, "user");
  access.kubernetes_namespace = Text(ctx, "namespace");

  TP_ASSIGN_OR_RETURN(Json cluster, Named(config, "clusters", cluster_name, "cluster"));
  const std::string cluster_field = absl::StrCat("clusters[", cluster_name, "].cluster");
  // Request paths are appended with their own leading '/'.
  access.server = std::string(absl::StripSuffix(Text(cluster, "server"), "/"));
  if (access.server.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(cluster_field, ".server: required"));
  }
  TP_ASSIGN_OR_RETURN(access.ca_pem,
                      Pem(cluster, "certificate-authority", base_dir, cluster_field));
  access.insecure_skip_tls_verify =
      cluster.contains("insecure-skip-tls-verify") && cluster["insecure-skip-tls-verify"] == true;

  if (user_name.empty()) return access;  // anonymous
  TP_ASSIGN_OR_RETURN(Json user, Named(config, "users", user_name, "user"));
  const std::string user_field = absl::StrCat("users[", user_name, "].user");
  for (const char* plugin : {"exec", "auth-provider"}) {
    if (user.contains(plugin)) {
      return absl::UnimplementedError(absl::StrCat(
          user_field, ".", plugin,
          ": credential plugins are not supported; use a token, tokenFile or client certificate"));
    }
  }
  access.token = Text(user, "token");
  if (access.token.empty() && !Text(user, "tokenFile").empty()) {
    std::filesystem::path path(Text(user, "tokenFile"));
    if (path.is_relative()) path = base_dir / path;
    absl::StatusOr<std::string> token = base::ReadRegularFile(
        path,
        base::BoundedReadOptions{.max_bytes = kMaxCredentialFileBytes, .what = "a token file"});
    if (!token.ok()) {
      return base::WithContext(token.status(), absl::StrCat(user_field, ".tokenFile"));
    }
    access.token = std::string(absl::StripAsciiWhitespace(*token));
  }
  TP_ASSIGN_OR_RETURN(access.client_cert_pem,
                      Pem(user, "client-certificate", base_dir, user_field));
  TP_ASSIGN_OR_RETURN(access.client_key_pem, Pem(user, "client-key", base_dir, user_field));
  if (access.client_cert_pem.empty() != access.client_key_pem.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        user_field, ": client-certificate and client-key go together; one is missing"));
  }
  return access;
}

absl::StatusOr<ClusterAccess> LoadKubeconfig(const std::filesystem::path& path,
                                             std::string_view context) {
  TP_ASSIGN_OR_RETURN(
      std::string text,
      base::ReadRegularFile(path, base::BoundedReadOptions{.max_bytes = kMaxKubeconfigBytes,
                                                           .what = "a kubeconfig"}));
  absl::StatusOr<ClusterAccess> access = ParseKubeconfig(text, path.parent_path(), context);
  if (!access.ok()) {
    return base::WithContext(access.status(), path.string());
  }
  return access;
}

}  // namespace trainpkg::sdk::k8s
