// Building images from a Dockerfile, daemonless: the public API behind
// `trainpkg build` and `trainpkg images`.
//
//   sdk::ImageBuildOptions options;
//   options.context_dir = "trainer";
//   options.tags = {"trainer:v1"};                 // into the local store
//   options.output = "oci:out:v1";                 // and/or a layout
//   TP_ASSIGN_OR_RETURN(sdk::BuiltImage image, sdk::BuildImage(options));
//
// The local store is $TRAINPKG_HOME/images (else $HOME/.trainpkg/images), an
// oci-layout that also holds the layer cache's blobs; layer keys and the
// file-digest cache live in .../build-cache. SOURCE_DATE_EPOCH (options, else
// the environment) fixes every timestamp and clamps file mtimes, so unchanged
// inputs give the same digests on any day and from any checkout; without it
// files keep their mtimes (packager/layer/layer_options.h). Errors are those of packager/builder/builder.h plus
// FailedPrecondition when no home can be found and InvalidArgument for a bad
// --output, tag or SOURCE_DATE_EPOCH. A build holds the store's gc.lock
// shared (packager/builder/store_lock.h): `trainpkg images prune` waits for it.
#ifndef TRAINPKG_SDK_IMAGE_BUILDER_H_
#define TRAINPKG_SDK_IMAGE_BUILDER_H_

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "base/environment.h"
#include "packager/builder/builder.h"
#include "packager/builder/image_compress.h"
#include "packager/builder/image_store.h"
#include "registry/image_pusher.h"
#include "registry/oci/host_platform.h"
#include "registry/reference.h"
#include "registry/registry_client.h"
#include "registry/transfer_result.h"

namespace trainpkg::sdk {

// `trainpkg build --bundle-libs BINARY`: an image from a native executable
// and its shared-library closure, no Dockerfile and no base
// (packager/bundle/bundle_image.h).
struct BundleOptions {
  std::filesystem::path binary;
  std::vector<std::string> env;              // KEY=VALUE
  std::string workdir;                       // "": /
  std::string user;                          // "": root
  std::vector<std::string> cmd;              // Cmd
  bool ca_certificates = false;              // copy the host's CA bundle into the image
  std::vector<std::string> ld_library_path;  // searched as LD_LIBRARY_PATH
};

// `trainpkg import SOURCE`: a one-layer image from a root filesystem, no
// Dockerfile and no base (packager/builder/import_image.h).
struct ImportOptions {
  // A directory or a tar archive (plain, gzip, bzip2, xz or zstd); "-": a
  // tar archive on standard input, spooled under the build cache first.
  std::filesystem::path source;
  std::vector<std::string> changes;  // --change: CMD, ENTRYPOINT, ENV, ... (Docker's list)
  std::string platform;              // "": the host's (linux/<uname -m>)
};

struct ImageBuildOptions {
  // Set: build from `bundle`; context_dir, dockerfile, build_args, target and
  // platform are then unused (the platform is the binary's).
  std::optional<BundleOptions> bundle;
  // Set: import `import`; context_dir, dockerfile, build_args, target and
  // platform are then unused (the platform is import->platform).
  std::optional<ImportOptions> import;
  std::filesystem::path context_dir;
  std::filesystem::path dockerfile;  // "": CONTEXT/Dockerfile
  std::vector<std::string> tags;     // references to store the image as
  std::string output;                // "oci:DIR[:TAG]" (TAG default "latest"), "" for none
  std::map<std::string, std::string> build_args;
  std::string target;
  std::string platform = oci::HostPlatform();  // "os/arch[/variant]"; default: the host's
  std::map<std::string, std::string> labels;
  std::optional<int64_t> source_date_epoch;  // nullopt: $SOURCE_DATE_EPOCH, else 0
  std::string source;                        // org.opencontainers.image.source
  std::string revision;                      // org.opencontainers.image.revision
  bool lazy_base = false;  // --output: reference oci: base layers instead of copying them
  // --no-cache: every layer is built again (RUN steps run); the new layers
  // are still recorded, so a later build without it reuses them (BuildKit's).
  bool no_cache = false;
  int threads = 2;
  // --compression: gzip, zstd (application/vnd.oci.image.layer.v1.tar+zstd) or
  // none. Unset: gzip when there is an `output` or a `compression_level`,
  // else none: an image only stored keeps its layers uncompressed until it
  // is pushed (PushStoredImage), like Docker's and buildah's stores.
  std::optional<packager::LayerCompression> compression;
  // --compression-level: gzip 1..12 (default 6), zstd 1..19 (default 3).
  std::optional<int> compression_level;
  // --network: RUN's network unless a RUN --network says otherwise
  // (packager/builder/run_step.h).
  packager::builder::RunNetwork network = packager::builder::RunNetwork::kDefault;
  std::vector<packager::run::HostEntry> add_hosts;  // --add-host: in every RUN's /etc/hosts
  std::function<void(const packager::builder::BuildStep&)> progress;
  std::function<void(std::string_view)> run_output;    // RUN's stdout + stderr; may be empty
  const base::Environment* environment = nullptr;      // null: the process's
  std::shared_ptr<registry::RegistryClient> registry;  // null: anonymous client
};

struct BuiltImage {
  std::string manifest_digest;                  // "sha256:..."
  std::string image_id;                         // the config digest
  int64_t size = 0;                             // config + layers, bytes
  std::vector<std::string> tags;                // normalised, as stored
  std::string output;                           // the layout written, "" if none
  std::vector<std::string> missing_base_blobs;  // base layers only referenced
  packager::LayerCompression compression{};     // of the layers written
  packager::builder::BuildStats stats;
  std::vector<std::string> warnings;
};

absl::StatusOr<BuiltImage> BuildImage(const ImageBuildOptions& options);

// How layers the store keeps uncompressed are compressed when they leave
// (`trainpkg push --compression`, `--compression-level`).
struct PushCompression {
  packager::LayerCompression compression = packager::LayerCompression::kGzip;  // or kZstd
  std::optional<int> level;  // SetCompressionLevel's ranges; nullopt: the default
  int threads = 2;
};

struct StoredPushOptions {
  PushCompression compression;
  // Upload each layer while it is compressed (registry/streamed_upload.h),
  // so compressing and sending overlap; a stream that fails falls back to
  // the usual resumable upload of the finished blob.
  bool stream = true;
  registry::PushOptions push;  // jobs, progress, blob locations
  // Each layer compressed (or found compressed) for this push.
  std::function<void(const packager::builder::LayerCompressionStep&)> on_compress;
};

// Pushes the local store's image `tag` (a normalised reference, as
// BuiltImage::tags) to `target`: its uncompressed layers are compressed first
// as `options.compression` says (packager/builder/image_compress.h; once per
// layer and options, cached in the build cache) and, with `stream`, uploaded
// while they are compressed; then the image goes through registry::PushImage.
// The pushed image has the digest `trainpkg build --output oci:` gives with
// the same options. NotFound naming the store when the tag is not there;
// InvalidArgument for a bad level; PushImage's errors.
absl::StatusOr<registry::TransferResult> PushStoredImage(const base::Environment& environment,
                                                         std::string_view tag,
                                                         registry::RegistryClient& client,
                                                         const registry::Reference& target,
                                                         const StoredPushOptions& options);

// The images of the local store.
absl::StatusOr<std::vector<packager::builder::StoredImage>> ListImages(
    const base::Environment& environment);

// $TRAINPKG_HOME/images, else $HOME/.trainpkg/images.
absl::StatusOr<std::filesystem::path> ImageStoreDir(const base::Environment& environment);

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_IMAGE_BUILDER_H_
