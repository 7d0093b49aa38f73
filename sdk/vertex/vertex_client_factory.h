// Wiring for the Vertex backend: a VertexClient from VertexBackendOptions,
// with the defaults filled in (endpoint from the location, ADC credentials,
// libcurl with retries).
#ifndef TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_FACTORY_H_
#define TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_FACTORY_H_

#include <memory>
#include <string_view>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "sdk/vertex/vertex_backend_options.h"
#include "sdk/vertex/vertex_client.h"

namespace trainpkg::sdk::vertex {

// libcurl below a RetryTransport (http/retry_transport.h defaults).
std::shared_ptr<http::HttpTransport> MakeDefaultVertexTransport();

// The credentials for a local `trainpkg serve` at `endpoint`: for
// "http://<loopback host>:PORT", the token serve wrote under the trainpkg
// home that `env` names (local_serve_token.h); nullptr for any other endpoint.
// NotFound / FailedPrecondition (naming the endpoint and the token file) when
// the endpoint is local and no usable token file is there.
absl::StatusOr<std::shared_ptr<auth::Credentials>> LocalServeCredentials(
    std::string_view endpoint, const base::Environment& env);

// InvalidArgument when project or location is empty or not of its form
// (vertex_resource_ids.h), before anything is sent. When
// options.credentials is null: for a local serve endpoint its token
// (LocalServeCredentials, with its errors), else Application Default
// Credentials (the errors of MakeGoogleDefaultCredentials when the ADC file
// is broken). An explicit options.credentials always wins. `env` is read for
// ADC and the trainpkg home only.
absl::StatusOr<std::shared_ptr<VertexClient>> MakeVertexClient(const VertexBackendOptions& options,
                                                               const base::Environment& env);

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_FACTORY_H_
