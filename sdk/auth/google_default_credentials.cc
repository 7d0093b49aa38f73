#include "sdk/auth/google_default_credentials.h"

#include <system_error>

#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "sdk/auth/authorized_user_credentials.h"
#include "sdk/auth/cached_credentials.h"
#include "sdk/auth/compute_engine_credentials.h"

namespace trainpkg::sdk::auth {
namespace {

const base::Environment& EnvOf(const DefaultCredentialsOptions& options) {
  return options.environment != nullptr ? *options.environment : base::ProcessEnvironment();
}

bool Exists(const std::filesystem::path& path) {
  std::error_code ec;
  return std::filesystem::exists(path, ec);
}

}  // namespace

std::optional<std::filesystem::path> GcloudAdcFilePath(const base::Environment& env) {
  constexpr char kFile[] = "application_default_credentials.json";
  if (std::optional<std::string> config = env.Get("CLOUDSDK_CONFIG");
      config.has_value() && !config->empty()) {
    return std::filesystem::path(*config) / kFile;
  }
  if (std::optional<std::string> home = env.Get("HOME"); home.has_value() && !home->empty()) {
    return std::filesystem::path(*home) / ".config" / "gcloud" / kFile;
  }
  return std::nullopt;
}

absl::StatusOr<std::shared_ptr<Credentials>> CredentialsFromFile(
    const std::filesystem::path& path, const DefaultCredentialsOptions& options) {
  if (!Exists(path)) {
    return absl::NotFoundError(fmt::format("credentials file {} does not exist", path.string()));
  }
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(path));
  nlohmann::json json = base::ParseJson(text).value_or(nlohmann::json::value_t::discarded);
  if (!json.is_object()) {
    return absl::InvalidArgumentError(
        fmt::format("{}: not a JSON credentials file", path.string()));
  }
  std::string type = json.contains("type") && json["type"].is_string()
                         ? json["type"].get<std::string>()
                         : std::string();
  std::shared_ptr<Credentials> credentials;
  if (type == "service_account") {
    TP_ASSIGN_OR_RETURN(ServiceAccountKey key, ServiceAccountKeyFromJson(json, path.string()));
    ServiceAccountFlow flow = options.service_account_flow;
    // google-cloud-cpp's switch back to the OAuth token exchange.
    if (EnvOf(options).Get("GOOGLE_CLOUD_CPP_EXPERIMENTAL_DISABLE_SELF_SIGNED_JWT").has_value()) {
      flow = ServiceAccountFlow::kOAuthJwtBearer;
    }
    credentials = std::make_shared<ServiceAccountCredentials>(std::move(key), flow,
                                                              options.transport, options.scopes);
  } else if (type == "authorized_user") {
    TP_ASSIGN_OR_RETURN(AuthorizedUser user, AuthorizedUserFromJson(json, path.string()));
    credentials = std::make_shared<AuthorizedUserCredentials>(std::move(user), options.transport);
  } else {
    return absl::InvalidArgumentError(fmt::format(
        "{}: credentials \"type\" is \"{}\"; supported: \"service_account\", \"authorized_user\"",
        path.string(), type));
  }
  // Cached: one signature or token request per token lifetime, not per call.
  return std::make_shared<CachedCredentials>(std::move(credentials));
}

absl::StatusOr<std::shared_ptr<Credentials>> MakeGoogleDefaultCredentials(
    const DefaultCredentialsOptions& options) {
  const base::Environment& env = EnvOf(options);
  // google-cloud-cpp's ADC order: the file GOOGLE_APPLICATION_CREDENTIALS
  // names (an error if it cannot be read), then gcloud's file if it exists,
  // then the metadata server.
  if (std::optional<std::string> path = env.Get("GOOGLE_APPLICATION_CREDENTIALS");
      path.has_value() && !path->empty()) {
    absl::StatusOr<std::shared_ptr<Credentials>> credentials = CredentialsFromFile(*path, options);
    if (!credentials.ok()) {
      return base::WithContext(credentials.status(), "GOOGLE_APPLICATION_CREDENTIALS");
    }
    return credentials;
  }
  if (std::optional<std::filesystem::path> adc = GcloudAdcFilePath(env);
      adc.has_value() && Exists(*adc)) {
    return CredentialsFromFile(*adc, options);
  }
  return std::shared_ptr<Credentials>(std::make_shared<CachedCredentials>(
      std::make_shared<ComputeEngineCredentials>(MetadataServerHost(env), options.transport)));
}

}  // namespace trainpkg::sdk::auth
