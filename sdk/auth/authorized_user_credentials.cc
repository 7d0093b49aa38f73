#include "sdk/auth/authorized_user_credentials.h"

#include "fmt/format.h"
#include "sdk/auth/internal/token_response.h"
#include "sdk/internal/percent_encoding.h"

namespace trainpkg::sdk::auth {

absl::StatusOr<AuthorizedUser> AuthorizedUserFromJson(const nlohmann::json& json,
                                                      std::string_view source) {
  AuthorizedUser user;
  for (auto [field, target] :
       {std::pair{"client_id", &user.client_id}, std::pair{"client_secret", &user.client_secret},
        std::pair{"refresh_token", &user.refresh_token}}) {
    auto it = json.find(field);
    if (it == json.end() || !it->is_string() || it->get<std::string>().empty()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: authorized_user credentials have no \"{}\"", source, field));
    }
    *target = it->get<std::string>();
  }
  if (auto it = json.find("token_uri"); it != json.end() && it->is_string()) {
    user.token_uri = it->get<std::string>();
  }
  return user;
}

absl::StatusOr<AccessToken> AuthorizedUserCredentials::GetToken(absl::Time now) {
  std::string form = sdk::internal::EncodeQuery({{"grant_type", "refresh_token"},
                                                 {"client_id", user_.client_id},
                                                 {"client_secret", user_.client_secret},
                                                 {"refresh_token", user_.refresh_token}});
  return internal::PostTokenForm(*transport_, user_.token_uri, form, now,
                                 fmt::format("refreshing the gcloud user token at {} (run `gcloud "
                                             "auth application-default login` if it expired)",
                                             user_.token_uri));
}

}  // namespace trainpkg::sdk::auth
