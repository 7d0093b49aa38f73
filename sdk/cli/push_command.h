// `trainpkg push REF`: push what `trainpkg build -t REF` stored in the local
// image store, its uncompressed layers compressed first (--compression,
// --compression-level; sdk::PushStoredImage); `trainpkg push oci:DIR[:TAG]
// REF`: push an image or index from an oci-layout, as it is. Both remember
// where each blob went (the blob location
// cache, $TRAINPKG_HOME/blob-locations.json) so a later push to another
// repository of the same registry mounts instead of uploading. Also the
// registry flags and client wiring that `pull` and `login` share.
#ifndef TRAINPKG_SDK_CLI_PUSH_COMMAND_H_
#define TRAINPKG_SDK_CLI_PUSH_COMMAND_H_

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "registry/blob_locations.h"
#include "registry/progress.h"
#include "registry/registry_client.h"

namespace trainpkg::cli {

// Flags every registry command takes.
struct RegistryFlags {
  std::vector<std::string> insecure_registries;  // --insecure-registry HOST (repeatable)
};

// Declares --insecure-registry on `command`.
void AddRegistryFlags(CLI::App* command, RegistryFlags& flags);

// A client using docker's config.json (DOCKER_CONFIG / ~/.docker) for
// credentials, or `keychain` when given.
std::unique_ptr<registry::RegistryClient> MakeRegistryClient(
    const RegistryFlags& flags, std::shared_ptr<registry::Keychain> keychain = nullptr);

// The blob location cache under the trainpkg home ($TRAINPKG_HOME, else
// $HOME/.trainpkg): blob-locations.json. When that cannot be read (no home,
// an unreadable file), a warning and an in-memory cache: pushes and pulls
// work without it.
std::unique_ptr<registry::BlobLocations> OpenBlobLocations();

// Progress on `out`: redrawn lines when it is a terminal (std::cout or
// std::cerr attached to one), plain lines otherwise.
std::unique_ptr<registry::Progress> MakeProgress(std::ostream& out,
                                                 registry::TransferDirection direction);

struct PushFlags {
  std::string source;           // oci:DIR[:TAG], or the reference when `target` is empty
  std::string target;           // registry reference; empty: push `source` from the store
  std::string format = "text";  // text | json
  bool quiet = false;           // -q: only REFERENCE@DIGEST
  int jobs = 4;
  // How the store's uncompressed layers are compressed on the way out.
  std::string compression = "gzip";  // gzip | zstd
  int compression_level = 0;         // 0: the compression's default
  RegistryFlags registry;
};

CLI::App* AddPushCommand(CLI::App& app, PushFlags& flags);

// Progress goes to `out` (redrawn lines when `out` is a terminal, plain
// lines otherwise) and ends with "<tag>: digest: <digest> size: <n>"; with
// --format json, progress lines go to `err` and `out` gets one JSON summary.
// Returns 0, 1 when the push failed (an image not in the store included),
// 2 for an invalid source or reference.
int PushCommand(const PushFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_PUSH_COMMAND_H_
