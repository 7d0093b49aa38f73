#include "registry/auth/credential_helper.h"

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "base/subprocess.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace trainpkg::registry {
namespace {

// The docker-credential-helpers protocol: a Secret stored under this
// username is an identity token, not a password.
constexpr char kTokenUsername[] = "<token>";
// What the helpers print when they hold nothing for the server; the exit
// status alone does not tell that from a failure.
constexpr char kNotFoundMessage[] = "credentials not found";
constexpr absl::Duration kHelperTimeout = absl::Seconds(30);

std::string FirstLine(std::string text) {
  text = std::string(absl::StripAsciiWhitespace(text));
  return text.substr(0, std::min(text.find('\n'), size_t{300}));
}

}  // namespace

absl::StatusOr<std::string> CredentialHelper::Run(std::string_view verb,
                                                  std::string_view input) const {
  std::string path_list = env_.Get("PATH").value_or("/usr/local/bin:/usr/bin:/bin");
  std::optional<std::filesystem::path> exe = base::FindInPath(program(), path_list);
  if (!exe.has_value()) {
    return absl::FailedPreconditionError(fmt::format(
        "credential helper {} is not on PATH (configured in docker's config.json)", program()));
  }
  TP_ASSIGN_OR_RETURN(
      base::SubprocessResult result,
      base::RunSubprocess({exe->string(), std::string(verb)}, input, kHelperTimeout));
  if (result.exit_code != 0) {
    std::string why = FirstLine(result.out.empty() ? result.err : result.out);
    if (absl::StrContains(why, kNotFoundMessage)) return absl::NotFoundError(why);
    return absl::UnavailableError(
        fmt::format("{} {} exited with status {}: {}", program(), verb, result.exit_code, why));
  }
  return std::move(result.out);
}

absl::StatusOr<Credential> CredentialHelper::Get(std::string_view server_url) const {
  absl::StatusOr<std::string> out = Run("get", server_url);
  // Nothing stored for this registry: anonymous, as docker does.
  if (absl::IsNotFound(out.status())) return Credential{};
  if (!out.ok()) return out.status();
  nlohmann::json doc = base::ParseJson(*out).value_or(nlohmann::json::value_t::discarded);
  if (!doc.is_object() || !doc.contains("Secret") || !doc["Secret"].is_string() ||
      (doc.contains("Username") && !doc["Username"].is_string())) {
    return absl::UnavailableError(
        fmt::format("{} get for {} printed no JSON object with a string Secret (and Username)",
                    program(), server_url));
  }
  std::string username = doc.value("Username", "");
  Credential credential;
  if (username == kTokenUsername) {
    credential.identity_token = doc["Secret"];
  } else {
    credential.username = username;
    credential.password = doc["Secret"];
  }
  return credential;
}

absl::Status CredentialHelper::Store(std::string_view server_url,
                                     const Credential& credential) const {
  bool token = !credential.identity_token.empty();
  nlohmann::json doc = {{"ServerURL", server_url},
                        {"Username", token ? std::string(kTokenUsername) : credential.username},
                        {"Secret", token ? credential.identity_token : credential.password}};
  return Run("store", doc.dump()).status();
}

absl::Status CredentialHelper::Erase(std::string_view server_url) const {
  absl::StatusOr<std::string> out = Run("erase", server_url);
  if (absl::IsNotFound(out.status())) return absl::OkStatus();
  return out.status();
}

}  // namespace trainpkg::registry
