#include "registry/auth/auth_transport.h"

#include "base/log.h"
#include "base/status_macros.h"
#include "http/url.h"
#include "registry/auth/challenge.h"

namespace trainpkg::registry {
namespace {

constexpr int kMaxAnswers = 2;

}  // namespace

absl::StatusOr<http::HttpResponse> AuthTransport::Send(const http::HttpRequest& request) {
  absl::StatusOr<std::string> origin = http::UrlOrigin(request.url);
  if (!origin.ok() || *origin != auth_->origin()) {
    TP_LOG(DEBUG, "{} {}: another origin than the registry's {}; sent without credentials",
           request.method, http::UrlForDisplay(request.url), auth_->origin());
    return inner_->Send(request);
  }
  http::HttpRequest authorized = request;
  TP_ASSIGN_OR_RETURN(std::optional<std::string> header, auth_->AuthorizationFor(scopes_));
  if (header.has_value()) authorized.headers.Set("Authorization", *header);
  TP_ASSIGN_OR_RETURN(http::HttpResponse response, inner_->Send(authorized));
  // Two answers at most: the first may be a token the registry refuses at
  // once (expired by its clock, revoked); the second is then a fresh one.
  for (int round = 0; round < kMaxAnswers && response.status == 401; ++round) {
    std::vector<Challenge> challenges;
    for (const std::string& value : response.headers.GetAll("WWW-Authenticate")) {
      for (Challenge& c : ParseChallenges(value)) challenges.push_back(std::move(c));
    }
    if (challenges.empty()) return response;
    TP_ASSIGN_OR_RETURN(std::optional<std::string> answer,
                        auth_->Answer(challenges, scopes_, header));
    if (!answer.has_value()) return response;
    if (request.body != nullptr && !request.body->Rewind()) return response;
    header = answer;
    authorized.headers.Set("Authorization", *answer);
    TP_ASSIGN_OR_RETURN(response, inner_->Send(authorized));
  }
  return response;
}

}  // namespace trainpkg::registry
