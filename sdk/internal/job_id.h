// Numeric job ids like Vertex's: milliseconds since the epoch followed by
// three random digits, e.g. "1763777624123457".
#ifndef TRAINPKG_SDK_INTERNAL_JOB_ID_H_
#define TRAINPKG_SDK_INTERNAL_JOB_ID_H_

#include <string>
#include <string_view>

#include "absl/time/time.h"

namespace trainpkg::sdk::internal {

std::string GenerateJobId(absl::Time now);

// "projects/<project>/locations/<location>/customJobs/<id>".
std::string JobResourceName(std::string_view project, std::string_view location,
                            std::string_view id);

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_JOB_ID_H_
