#include "sdk/auth/cached_credentials.h"

namespace trainpkg::sdk::auth {

absl::StatusOr<AccessToken> CachedCredentials::GetToken(absl::Time now) {
  std::lock_guard<std::mutex> lock(mu_);
  // Refreshed `slack_` early, so a token does not expire while a request
  // that carries it is on its way.
  if (cached_.has_value() && now + slack_ < cached_->expiration) return *cached_;
  absl::StatusOr<AccessToken> token = inner_->GetToken(now);
  if (!token.ok()) return token.status();
  cached_ = *token;
  return token;
}

}  // namespace trainpkg::sdk::auth
