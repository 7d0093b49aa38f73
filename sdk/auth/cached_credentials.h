// A token cache in front of credentials that fetch: a token is reused until
// `slack` before it expires (300 s, google-cloud-cpp's refresh slack), then
// fetched again.
#ifndef TRAINPKG_SDK_AUTH_CACHED_CREDENTIALS_H_
#define TRAINPKG_SDK_AUTH_CACHED_CREDENTIALS_H_

#include <memory>
#include <mutex>
#include <optional>

#include "sdk/auth/credentials.h"

namespace trainpkg::sdk::auth {

inline constexpr absl::Duration kTokenRefreshSlack = absl::Seconds(300);

// Thread-safe; concurrent callers share one fetch.
class CachedCredentials final : public Credentials {
 public:
  explicit CachedCredentials(std::shared_ptr<Credentials> inner,
                             absl::Duration slack = kTokenRefreshSlack)
      : inner_(std::move(inner)), slack_(slack) {}

  // The cached token while `now + slack` is before its expiration; else the
  // inner credentials' next token (an error is returned, not cached).
  absl::StatusOr<AccessToken> GetToken(absl::Time now) override;
  std::string Describe() const override { return inner_->Describe(); }

 private:
  const std::shared_ptr<Credentials> inner_;
  const absl::Duration slack_;
  std::mutex mu_;
  std::optional<AccessToken> cached_;  // guarded by mu_
};

}  // namespace trainpkg::sdk::auth

#endif  // TRAINPKG_SDK_AUTH_CACHED_CREDENTIALS_H_
