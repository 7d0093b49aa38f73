// The GCE metadata server's token for the VM's default service account:
// GET http://<host>/computeMetadata/v1/instance/service-accounts/default/token
// with "Metadata-Flavor: Google".
#ifndef TRAINPKG_SDK_AUTH_COMPUTE_ENGINE_CREDENTIALS_H_
#define TRAINPKG_SDK_AUTH_COMPUTE_ENGINE_CREDENTIALS_H_

#include <memory>
#include <string>

#include "base/environment.h"
#include "http/http_transport.h"
#include "sdk/auth/credentials.h"

namespace trainpkg::sdk::auth {

// $GCE_METADATA_HOST, else $GCE_METADATA_ROOT, else "metadata.google.internal".
std::string MetadataServerHost(const base::Environment& env);

// Thread-safe. Not cached: put CachedCredentials in front.
class ComputeEngineCredentials final : public Credentials {
 public:
  // `host` is "host[:port]".
  ComputeEngineCredentials(std::string host, std::shared_ptr<http::HttpTransport> transport)
      : host_(std::move(host)), transport_(std::move(transport)) {}

  // Unavailable (naming the other ADC sources) when the server cannot be
  // reached, i.e. not on Google Cloud.
  absl::StatusOr<AccessToken> GetToken(absl::Time now) override;
  std::string Describe() const override;

 private:
  const std::string host_;
  const std::shared_ptr<http::HttpTransport> transport_;
};

}  // namespace trainpkg::sdk::auth

#endif  // TRAINPKG_SDK_AUTH_COMPUTE_ENGINE_CREDENTIALS_H_
