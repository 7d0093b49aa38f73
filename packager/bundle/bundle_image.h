// A self-contained image from a native executable: its shared-library
// closure (library_resolver.h), laid out in layers by volatility
// (bundle_layers.h), with a minimal /etc (etc_files.h); no base image.
//
//   BundleRequest request;
//   request.binary = "build/samples/digits_multiworker/digits_multiworker";
//   TP_ASSIGN_OR_RETURN(builder::BuiltImage image, BuildBundle(request, store));
//   // then ExportImage / ImageStore::Tag as for a Dockerfile build
//
// Config: Entrypoint ["/usr/local/bin/NAME"], Cmd `cmd`, Env
// PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin then
// `env` (a later KEY replaces an earlier one), WorkingDir, User, Labels;
// one history entry per layer. Every timestamp is SOURCE_DATE_EPOCH (else
// 1970), so the same binary and libraries give the same digests.
//
// Errors: NotFound for a missing binary or library (naming the directories
// searched), InvalidArgument for a binary that is not a dynamically or
// statically linked 64-bit ELF executable of x86-64/aarch64, or for bad
// `env`; I/O errors naming the path. Each is prefixed "bundling BINARY: ".
// Not thread-safe per store (as Builder).
#ifndef TRAINPKG_PACKAGER_BUNDLE_BUNDLE_IMAGE_H_
#define TRAINPKG_PACKAGER_BUNDLE_BUNDLE_IMAGE_H_

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/builder.h"
#include "packager/bundle/library_resolver.h"
#include "registry/oci/layout.h"

namespace trainpkg::packager::bundle {

struct BundleRequest {
  std::filesystem::path binary;              // a host path; relative to the working directory
  std::vector<std::string> ld_library_path;  // searched as LD_LIBRARY_PATH; empty: not at all
  std::vector<std::string> env;              // KEY=VALUE
  std::string workdir;                       // "": /
  std::string user;                          // "": root
  std::vector<std::string> cmd;              // Cmd: default arguments
  std::string ca_bundle;                     // a host file copied to kCaBundlePath; "": none
  std::map<std::string, std::string> labels;
  std::optional<int64_t> source_date_epoch;
  std::string source;                                      // org.opencontainers.image.source
  std::string revision;                                    // org.opencontainers.image.revision
  int threads = 2;                                         // compression threads
  LayerCompression compression = LayerCompression::kGzip;  // or kZstd, kNone
  std::optional<int> compression_level;  // SetCompressionLevel's ranges; nullopt: default
  // The loader to emulate; nullopt: DebianLoaderConfig for the binary's
  // machine on the host root, with `ld_library_path`.
  std::optional<LoaderConfig> loader;
};

// Writes the layers, config and manifest as blobs of `store`.
absl::StatusOr<builder::BuiltImage> BuildBundle(const BundleRequest& request,
                                                const oci::Layout& store);

}  // namespace trainpkg::packager::bundle

#endif  // TRAINPKG_PACKAGER_BUNDLE_BUNDLE_IMAGE_H_
