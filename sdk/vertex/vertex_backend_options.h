// Where the Vertex backend of sdk::CustomJob sends a job and how it watches it.
#ifndef TRAINPKG_SDK_VERTEX_VERTEX_BACKEND_OPTIONS_H_
#define TRAINPKG_SDK_VERTEX_VERTEX_BACKEND_OPTIONS_H_

#include <memory>
#include <string>

#include "absl/time/time.h"
#include "http/http_transport.h"
#include "sdk/auth/credentials.h"

namespace trainpkg::sdk::vertex {

struct VertexBackendOptions {
  std::string project;   // required: project id or number
  std::string location;  // required: region, e.g. "us-central1"
  // "" means VertexEndpointFor(location); "http://127.0.0.1:PORT" reaches
  // `trainpkg serve`.
  std::string endpoint;
  // nullptr: Application Default Credentials (google_default_credentials.h).
  std::shared_ptr<auth::Credentials> credentials;
  // nullptr: libcurl with retries of idempotent requests.
  std::shared_ptr<http::HttpTransport> transport;
  // The job is polled after initial_poll_interval, then at intervals
  // growing by poll_multiplier up to max_poll_interval; Cancel() polls at once.
  absl::Duration initial_poll_interval = absl::Seconds(1);
  absl::Duration max_poll_interval = absl::Seconds(30);
  double poll_multiplier = 1.5;
};

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_VERTEX_BACKEND_OPTIONS_H_
