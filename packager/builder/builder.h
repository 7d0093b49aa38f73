// `docker build` without a daemon: Dockerfile + context -> an OCI image whose
// layers, config and manifest are blobs of `store` (a layout; the local image
// store's). Base layers are referenced, never downloaded; ExportImage
// (image_export.h) then copies into an output layout what it lacks.
//
//   Builder builder({.store = store, .cache_dir = home / "build-cache"});
//   TP_ASSIGN_OR_RETURN(BuiltImage image, builder.Build(request));
//
// Steps: every instruction of the stages the target needs, in order, each
// kind a step of its own (build_session.h): FROM, config-only instructions
// (history with empty_layer), COPY/ADD and RUN (one layer each, through the
// layer cache, layer_cache.h). RUN runs the command
// under runc over the stage's filesystem (run_step.h): the base image's
// layers are unpacked (downloaded first for registry bases) into a
// RootfsCache, so a RUN needs root, overlayfs and runc. `created` (config, history, annotation) is
// SOURCE_DATE_EPOCH, else 1970-01-01T00:00:00Z; file mtimes are kept, or clamped to
// SOURCE_DATE_EPOCH when set, so with it the same inputs give the same digests.
//
// Errors: InvalidArgument "DOCKERFILE:LINE: KEYWORD: what" for Dockerfile and
// context problems (missing file, path or symlink leaving the context, bad
// flags); Aborted "DOCKERFILE:LINE: RUN: the command exited with code N"
// with the output's tail for a failing RUN; NotFound for a missing Dockerfile/context/base; I/O
// codes naming the path. Not thread-safe; builds in several processes may share a store.
#ifndef TRAINPKG_PACKAGER_BUILDER_BUILDER_H_
#define TRAINPKG_PACKAGER_BUILDER_BUILDER_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/base_image.h"
#include "packager/builder/build_session.h"
#include "packager/builder/run_step.h"
#include "packager/dockerfile/build_plan.h"
#include "packager/layer/layer_options.h"
#include "registry/oci/descriptor.h"
#include "registry/oci/image_config.h"
#include "registry/oci/image_manifest.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::builder {

struct BuildRequest {
  std::filesystem::path context_dir;
  std::filesystem::path dockerfile;  // "": CONTEXT/Dockerfile
  std::map<std::string, std::string> build_args;
  std::string target;                         // "": the last stage
  std::string platform = "linux/amd64";       // --platform
  std::map<std::string, std::string> labels;  // --label, applied last
  std::optional<int64_t> source_date_epoch;   // created + clamped mtimes
  std::string source;                         // org.opencontainers.image.source
  std::string revision;                       // org.opencontainers.image.revision
  int threads = 2;                            // compression threads
  // Layer compression: kGzip, kZstd (OCI media type ...tar+zstd), or kNone
  // (...tar: what the local store keeps; image_compress.h compresses it later).
  LayerCompression compression = LayerCompression::kGzip;
  // Its level (SetCompressionLevel's ranges); nullopt: LayerOptions' default.
  std::optional<int> compression_level;
  // RUN's network (`--network`), unless a RUN --network says otherwise.
  RunNetwork network = RunNetwork::kDefault;
  std::vector<run::HostEntry> add_hosts;  // --add-host: /etc/hosts lines of every RUN
  // --no-cache: no layer is taken from the layer cache (RUN steps run
  // again); the layers built are still recorded in it.
  bool no_cache = false;
};

// One step as it starts ("FROM ...", "COPY ...") and, for layer steps, once
// more when done with `cached` set.
struct BuildStep {
  int index = 0;  // 1-based
  int total = 0;
  std::string text;  // the instruction as written, continuations joined
  bool done = false;
  bool cached = false;
};

struct BuildStats {
  int layers_written = 0;
  int layers_cached = 0;
  int64_t files_hashed = 0;  // context files whose content was read for cache keys
};

struct BuiltImage {
  oci::Descriptor manifest_descriptor;  // media type, digest, size
  std::string manifest_bytes;
  oci::ImageManifest manifest;
  oci::Descriptor config_descriptor;
  oci::ImageConfig config;
  std::optional<oci::Layout> base_layout;  // an oci: base's layout (its layer blobs)
  size_t base_layer_count = 0;             // manifest.layers[0..n) are the base's
  BuildStats stats;
  std::vector<std::string> warnings;
};

struct BuilderOptions {
  oci::Layout store;                               // where blobs are written
  std::filesystem::path cache_dir;                 // layer keys + file digest cache
  RegistryBaseSource* registry = nullptr;          // registry bases; not owned, may be null
  std::function<void(const BuildStep&)> progress;  // may be empty
  // RUN: where base images are unpacked (unpack::RootfsCache); "":
  // cache_dir / "rootfs". The local backend's is $TRAINPKG_HOME/rootfs.
  std::filesystem::path rootfs_dir;
  std::function<void(std::string_view)> run_output;  // RUN's stdout + stderr; may be empty
};

// Runs the steps of build_session.h; RUN goes through runc (StageRunner).
class Builder : private StageRunner {
 public:
  explicit Builder(BuilderOptions options) : options_(std::move(options)) {}
  absl::StatusOr<BuiltImage> Build(const BuildRequest& request);

 private:
  // The unpacked rootfs of `base` ("" when it has no layers).
  absl::StatusOr<std::filesystem::path> BaseRootfs(const StageBase& base) const;
  absl::StatusOr<LayerSource> Run(const StageBase& base, std::span<const RunLayer> layers,
                                  const RunCommand& command,
                                  const std::filesystem::path& work_dir) const override;
  absl::StatusOr<run::OverlayMount> Mount(const StageBase& base, std::span<const RunLayer> layers,
                                          const std::filesystem::path& work_dir) const override;

  BuilderOptions options_;
};

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_BUILDER_H_
