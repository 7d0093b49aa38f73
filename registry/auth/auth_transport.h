// An HttpTransport decorator that authorizes requests for one set of scopes
// on one registry: it attaches what the Authenticator knows and, on a 401
// with a challenge, answers it and sends the request again (only when its
// body can be replayed): twice at most, so that a token the registry
// refuses as soon as it is issued (clock skew, revocation) is replaced once.
// Only requests to the registry's own origin (Authenticator::origin: scheme,
// host and port) are authorized: an upload Location or Link naming another
// host, port or scheme is sent without credentials and its 401 is not
// answered. (Redirects that libcurl follows drop the header the same way.)
#ifndef TRAINPKG_REGISTRY_AUTH_AUTH_TRANSPORT_H_
#define TRAINPKG_REGISTRY_AUTH_AUTH_TRANSPORT_H_

#include <memory>
#include <string>
#include <vector>

#include "http/http_transport.h"
#include "registry/auth/authenticator.h"

namespace trainpkg::registry {

// Thread-safe when `inner` is.
class AuthTransport final : public http::HttpTransport {
 public:
  AuthTransport(std::shared_ptr<http::HttpTransport> inner, std::shared_ptr<Authenticator> auth,
                std::vector<std::string> scopes)
      : inner_(std::move(inner)), auth_(std::move(auth)), scopes_(std::move(scopes)) {}

  // A 401 that cannot be answered comes back as the response; a failure to
  // get a token comes back as its Status.
  absl::StatusOr<http::HttpResponse> Send(const http::HttpRequest& request) override;

 private:
  std::shared_ptr<http::HttpTransport> inner_;
  std::shared_ptr<Authenticator> auth_;
  std::vector<std::string> scopes_;
};

}  // namespace trainpkg::registry

#endif  // TRAINPKG_REGISTRY_AUTH_AUTH_TRANSPORT_H_
