// Fuzz target: any bytes through the Dockerfile parser, the planner and the
// stage expander, and the .dockerignore parser and matcher. Must never crash,
// hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "packager/dockerfile/build_plan.h"
#include "packager/dockerfile/dockerfile.h"
#include "packager/dockerfile/dockerignore.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::packager::dockerfile;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Dockerfile> df = ParseDockerfile(text, "Dockerfile");
  if (df.ok()) {
    BuildOptions options;
    options.build_args = {{"A", "x y"}, {"HTTP_PROXY", "http://proxy"}};
    absl::StatusOr<BuildPlan> plan = PlanBuild(*df, options);
    if (plan.ok()) {
      for (int stage : plan->order) {
        (void)ExpandStage(*df, *plan, options, stage, {"HOME=/root", "PATH=/bin"});
      }
    }
  }
  absl::StatusOr<DockerIgnore> ignore = DockerIgnore::Parse(text);
  if (ignore.ok()) {
    for (std::string_view path : {"a", "a/b/c.go", "Dockerfile", "x/.git/config"}) {
      (void)ignore->IsExcluded(path);
      (void)ignore->MustWalk(path);
    }
  }
  return 0;
}
