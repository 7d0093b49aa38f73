// The layer cache key of a COPY/ADD step: sha256 over
//   - the parent chain (the base's config digest, then every earlier step's key),
//   - the instruction as written, the layer options that change the bytes
//     (SOURCE_DATE_EPOCH, mtime policy, compression, gzip level, block size),
//   - each entry's source, destination and --chown/--chmod, and for a
//     heredoc's file (LayerEntry::kContent) the sha256 of its bytes,
//   - every context path the entry reads: path, type, size, executable bit,
//     mtime as the layer writer writes it (LayerMtime), hardlink group, symlink target, and
//     the content digest of regular files (through FileDigestCache, so an
//     unchanged file is stat'ed, not read; files it must read are hashed on
//     `options.threads` threads).
// The key is what would change the layer's bytes, and nothing else: touching
// a file keeps the key only when SOURCE_DATE_EPOCH clamps the new mtime to the
// same epoch; without it the mtime is in the layer, so in the key.
#ifndef TRAINPKG_PACKAGER_BUILDER_LAYER_KEY_H_
#define TRAINPKG_PACKAGER_BUILDER_LAYER_KEY_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/build_context.h"
#include "packager/builder/file_digest_cache.h"
#include "packager/layer/layer_entry.h"
#include "packager/layer/layer_options.h"
#include "registry/oci/digest.h"

namespace trainpkg::packager::builder {

// sha256 hex. Errors: reading a file or link fails (naming it).
absl::StatusOr<std::string> ComputeLayerKey(std::string_view parent_chain,
                                            std::string_view instruction,
                                            const std::vector<LayerEntry>& entries,
                                            const LayerOptions& options, const BuildContext& ctx,
                                            FileDigestCache* digests);

// The layer cache key of a RUN step, as Docker keys it: sha256 over the
// parent chain, the instruction as written, the argv, the environment the
// command sees (config Env and build args), the working directory, the user,
// the contents of files mounted for it (`files`: a heredoc script run
// directly), what its sandbox adds (`sandbox`: e.g. "network none"; none
// for the default sandbox, so its keys stay as they were) and the layer
// options that change the bytes. The command's output is not
// part of it: a RUN that reads the network is cached like any other.
std::string RunLayerKey(std::string_view parent_chain, std::string_view instruction,
                        const std::vector<std::string>& args, const std::vector<std::string>& env,
                        std::string_view cwd, std::string_view user, const LayerOptions& options,
                        const std::vector<std::string>& files = {},
                        const std::vector<std::string>& sandbox = {});

// The key under which the compressed form of the uncompressed layer
// `diff_id` is cached (image_compress.h): sha256 over the diff_id and the
// options that change the compressed bytes (compression, levels, block size).
std::string CompressedLayerKey(const oci::Digest& diff_id, const LayerOptions& options);

// The chain key after a step: sha256(parent_chain + "\n" + step) hex.
std::string ChainKey(std::string_view parent_chain, std::string_view step);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_LAYER_KEY_H_
