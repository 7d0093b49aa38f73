// What the steps of one build share (Builder::Build sets it up once), and
// the seam to what RUN needs of the host: runc and overlay mounts.
//
// A build is a loop over the instructions of the stages the target needs;
// each instruction kind is one step, which tests can run alone:
//   FROM                        from_step.h: a stage's starting state
//   ENV ARG LABEL WORKDIR USER
//   EXPOSE VOLUME ENTRYPOINT
//   CMD SHELL STOPSIGNAL ...    config_step.h: the stage's config and history
//   RUN                         run_instruction_step.h: a layer from a command
//   COPY ADD                    copy_step.h: a layer from the context or a stage
// RUN and COPY/ADD end in layer_step.h (the layer cache, then the store).
#ifndef TRAINPKG_PACKAGER_BUILDER_BUILD_SESSION_H_
#define TRAINPKG_PACKAGER_BUILDER_BUILD_SESSION_H_

#include <filesystem>
#include <map>
#include <span>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "packager/builder/base_image.h"
#include "packager/builder/build_context.h"
#include "packager/builder/file_digest_cache.h"
#include "packager/builder/layer_cache.h"
#include "packager/builder/run_step.h"
#include "packager/builder/stage_state.h"
#include "packager/dockerfile/dockerfile.h"
#include "packager/layer/layer_options.h"
#include "packager/run/hosts_file.h"
#include "registry/oci/layout.h"
#include "registry/oci/platform.h"

namespace trainpkg::packager::builder {

// What RUN, and COPY --from a stage that ran commands, need of the host.
class StageRunner {
 public:
  virtual ~StageRunner() = default;
  // Runs `command` over `base` and `layers` in `work_dir` (RunStep's
  // contract, run_step.h).
  virtual absl::StatusOr<LayerSource> Run(const StageBase& base, std::span<const RunLayer> layers,
                                          const RunCommand& command,
                                          const std::filesystem::path& work_dir) const = 0;
  // The stage's files (`base` + `layers`) mounted read-only at
  // work_dir/merged.
  virtual absl::StatusOr<run::OverlayMount> Mount(const StageBase& base,
                                                  std::span<const RunLayer> layers,
                                                  const std::filesystem::path& work_dir) const = 0;
};

// Not owned; each outlives the build.
struct BuildSession {
  const dockerfile::Dockerfile* file = nullptr;  // for stage names and error locations
  const BuildContext* context = nullptr;         // scanned, .dockerignore applied
  FileDigestCache* digests = nullptr;            // of the context's files
  const LayerCache* cache = nullptr;
  const oci::Layout* store = nullptr;  // where layer blobs are written
  const StageRunner* runner = nullptr;
  RegistryBaseSource* registry = nullptr;  // FROM a registry image; may be null
  oci::Platform platform;                  // --platform
  std::filesystem::path work_root;     // RUN's and mounts' work dirs go below it
  LayerOptions layer_options;
  bool no_cache = false;                  // --no-cache: no layer is taken from the cache
  RunNetwork network = RunNetwork::kDefault;  // RUN's, unless RUN --network says otherwise
  std::vector<run::HostEntry> add_hosts;  // every RUN's /etc/hosts lines
  const std::map<int, StageState>* stages = nullptr;  // the finished stages, by index
};

// `status` prefixed "DOCKERFILE:LINE: KEYWORD" of `instruction`.
absl::Status AtLine(const dockerfile::Dockerfile& file, const dockerfile::Instruction& instruction,
                    const absl::Status& status);

// A fresh work directory's name below `root` (not created), removed with
// what it holds when the guard goes.
class ScopedWorkDir {
 public:
  explicit ScopedWorkDir(const std::filesystem::path& root);
  ~ScopedWorkDir();
  ScopedWorkDir(const ScopedWorkDir&) = delete;
  ScopedWorkDir& operator=(const ScopedWorkDir&) = delete;
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_BUILD_SESSION_H_
