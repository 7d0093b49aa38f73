// The Vertex AI backend's driver (sdk/backend_driver.h): the job is created
// on the service (or anything speaking its REST v1 API, e.g. `trainpkg
// serve`), which assigns its id, and followed by polling
// (sdk/vertex/internal/vertex_backend.h); recorded in the job store when
// there is one (sdk/vertex/vertex_job_record.h).
#ifndef TRAINPKG_SDK_VERTEX_VERTEX_DRIVER_H_
#define TRAINPKG_SDK_VERTEX_VERTEX_DRIVER_H_

#include "sdk/backend_driver.h"

namespace trainpkg::sdk::vertex {

const BackendDriver& VertexDriver();

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_VERTEX_DRIVER_H_
