// Which stages a build runs, from what, in which order, and with which
// build args: the part of `docker build --target T --build-arg K=V` that
// needs only the Dockerfile.
//
//   BuildOptions options;
//   options.build_args = {{"PY", "3.11"}};
//   options.target = "runtime";
//   auto plan = PlanBuild(df, options);
//   for (int i : plan->order) { auto st = ExpandStage(df, *plan, options, i, base_env_of(i)); ... }
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_BUILD_PLAN_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_BUILD_PLAN_H_

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/dockerfile/dockerfile.h"
#include "packager/dockerfile/instruction.h"
#include "packager/dockerfile/var_scope.h"

namespace trainpkg::packager::dockerfile {

struct BuildOptions {
  std::map<std::string, std::string> build_args;  // --build-arg: override ARG defaults
  std::string target;                             // --target stage name; "" = last stage
  std::string platform = "linux/amd64";           // sets TARGET*/BUILD* automatic args
};

// What a FROM (after substitution with the global args) names.
struct BaseImage {
  enum class Kind { kScratch, kStage, kOciLayout, kRegistry };
  Kind kind = Kind::kScratch;
  int stage = -1;         // kStage: an earlier stage's index
  std::string oci_dir;    // kOciLayout: `oci:DIR[:REF]` (split at the first ':' after
  std::string oci_ref;    //   "oci:", as skopeo does); REF "" when absent
  std::string reference;  // kRegistry: the reference as written, for registry/ to parse
  std::string platform;   // expanded --platform, "" when absent
  bool operator==(const BaseImage&) const = default;
};

// Where a COPY --from reads: another stage, or an external image (a name
// that is neither a stage name nor an index, kept as written).
struct CopyFrom {
  enum class Kind { kStage, kImage };
  Kind kind = Kind::kStage;
  int stage = -1;
  std::string image;
  bool operator==(const CopyFrom&) const = default;
};

struct PlannedStage {
  BaseImage base;
  std::map<size_t, CopyFrom> copy_from;  // by index in Stage::instructions
  std::vector<int> depends_on;           // stages this one needs, ascending
};

struct BuildPlan {
  VarScope global_scope;             // global ARGs + automatic platform args
  std::vector<PlannedStage> stages;  // one per Dockerfile stage, same index
  int target = 0;
  std::vector<int> order;             // the stages to build, each after what it needs, target last
  std::vector<std::string> warnings;  // e.g. unused --build-arg; never printed
};

// Resolves FROM lines and COPY --from (substituted with ARG values; ENV of
// base images is not known here and not used), selects the target and orders
// its dependencies. InvalidArgument "path:line: KEYWORD: ..." for an unknown
// --target (with did-you-mean), a FROM naming a stage defined later, a COPY
// --from of its own stage or of an index out of range, a cycle between
// stages, or a substitution error. Unused --build-args give a warning (the
// predefined proxy args, SOURCE_DATE_EPOCH and BUILDKIT_* are never unused).
absl::StatusOr<BuildPlan> PlanBuild(const Dockerfile& df, const BuildOptions& options);

struct ExpandedStage {
  std::vector<Instruction> instructions;  // FROM excluded, every word expanded
  VarScope scope;                         // ENV and ARGs at the end of the stage
  // For each RUN (index into `instructions`): "NAME=value" of the ARGs then
  // in scope with a value and not hidden by an ENV, which Docker puts in the
  // command's environment (and not in the image's config).
  std::map<size_t, std::vector<std::string>> run_args;
  // For each RUN given any: "NAME=value" of Docker's predefined proxy args
  // (HTTP_PROXY, HTTPS_PROXY, FTP_PROXY, NO_PROXY, ALL_PROXY and their
  // lower-case forms) set with --build-arg that no ARG in scope declares and
  // no ENV hides. They go into the command's environment without an ARG,
  // and neither into the image config nor into the layer cache key (as
  // BuildKit keeps an exec's ProxyEnv out of its cache key, and the
  // docs promise: "exempt from caching unless there is a matching ARG").
  std::map<size_t, std::vector<std::string>> run_proxy_args;
};

// Expands stage `stage` instruction by instruction as the builder runs it:
// ARG declares (value: --build-arg, else its default, else the global ARG's
// value), ENV sets after its line is expanded. `base_env`: the base image's
// config Env ("K=V"; for a stage base, that stage's final env).
absl::StatusOr<ExpandedStage> ExpandStage(const Dockerfile& df, const BuildPlan& plan,
                                          const BuildOptions& options, int stage,
                                          const std::vector<std::string>& base_env);

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_BUILD_PLAN_H_
