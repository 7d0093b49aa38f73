// Wiring for the Vertex backend: a VertexClient from VertexBackendOptions,
// with the defaults filled in (endpoint from the location, ADC credentials,
// libcurl with retries).
#ifndef TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_FACTORY_H_
#define TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_FACTORY_H_

#include <memory>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "sdk/vertex/vertex_backend_options.h"
#include "sdk/vertex/vertex_client.h"

namespace trainpkg::sdk::vertex {

// libcurl below a RetryTransport (registry/retry_transport.h defaults).
std::shared_ptr<registry::HttpTransport> MakeDefaultVertexTransport();

// InvalidArgument when project or location is empty or not of its form
// (vertex_resource_ids.h), before anything is sent; the errors of
// MakeGoogleDefaultCredentials when options.credentials is null and the ADC
// file is broken. `env` is read for ADC only.
absl::StatusOr<std::shared_ptr<VertexClient>> MakeVertexClient(const VertexBackendOptions& options,
                                                               const base::Environment& env);

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_VERTEX_CLIENT_FACTORY_H_
