#include "sdk/internal/job_id.h"

#include <random>

#include "absl/strings/str_format.h"
#include "fmt/format.h"

namespace trainpkg::sdk::internal {

std::string GenerateJobId(absl::Time now) {
  std::random_device device;
  std::uniform_int_distribution<int> digits(0, 999);
  // Numeric like Vertex's ids and ordered by creation time; the random
  // digits make two jobs of the same millisecond unlikely to collide.
  return absl::StrFormat("%d%03d", absl::ToUnixMillis(now), digits(device));
}

std::string JobResourceName(std::string_view project, std::string_view location,
                            std::string_view id) {
  return fmt::format("projects/{}/locations/{}/customJobs/{}", project, location, id);
}

}  // namespace trainpkg::sdk::internal
