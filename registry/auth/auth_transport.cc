#include "registry/auth/auth_transport.h"

#include "base/status_macros.h"
#include "registry/auth/challenge.h"

namespace trainpkg::registry {

absl::StatusOr<HttpResponse> AuthTransport::Send(const HttpRequest& request) {
  HttpRequest authorized = request;
  TP_ASSIGN_OR_RETURN(std::optional<std::string> header, auth_->AuthorizationFor(scopes_));
  if (header.has_value()) authorized.headers.Set("Authorization", *header);
  TP_ASSIGN_OR_RETURN(HttpResponse response, inner_->Send(authorized));
  if (response.status != 401) return response;
  std::vector<Challenge> challenges;
  for (const std::string& value : response.headers.GetAll("WWW-Authenticate")) {
    for (Challenge& c : ParseChallenges(value)) challenges.push_back(std::move(c));
  }
  if (challenges.empty()) return response;
  TP_ASSIGN_OR_RETURN(std::optional<std::string> answer,
                      auth_->Answer(challenges, scopes_, header));
  if (!answer.has_value()) return response;
  if (request.body != nullptr && !request.body->Rewind()) return response;
  authorized.headers.Set("Authorization", *answer);
  return inner_->Send(authorized);
}

}  // namespace trainpkg::registry
