// The project and location of Vertex AI requests, checked before they become
// part of a URL: the location is in the host name
// (https://<location>-aiplatform.googleapis.com), the project in the path, so
// "127.0.0.1:18944/x#" as a region would send the bearer token to that host.
#ifndef TRAINPKG_SDK_VERTEX_VERTEX_RESOURCE_IDS_H_
#define TRAINPKG_SDK_VERTEX_VERTEX_RESOURCE_IDS_H_

#include <string_view>

#include "absl/status/status.h"

namespace trainpkg::sdk::vertex {

// The longest location: "<location>-aiplatform" stays one DNS label (63).
inline constexpr size_t kMaxLocationLength = 50;
// Google Cloud's limit on project ids.
inline constexpr size_t kMaxProjectIdLength = 30;

// OK for a region such as "us-central1" (or `trainpkg serve`'s "local"):
// lowercase letters, digits and '-', 1 to kMaxLocationLength characters.
// InvalidArgument quoting the value and naming the valid form otherwise.
absl::Status ValidateVertexLocation(std::string_view location);

// OK for a project id as Google Cloud documents it (a lowercase letter, then
// lowercase letters, digits or '-', not ending in '-', at most 30
// characters; Google's lower bound of 6 is not enforced, so `trainpkg serve`'s
// short names pass), a domain-scoped id ("example.com:my-project") or a
// project number (digits). InvalidArgument quoting the value otherwise.
absl::Status ValidateVertexProject(std::string_view project);

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_VERTEX_RESOURCE_IDS_H_
