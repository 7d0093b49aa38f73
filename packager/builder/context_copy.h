// COPY/ADD from the build context, turned into layer entries with Docker's
// rules:
//   - sources are relative to the context root ('/' is the root); '..' that
//     leaves the context is refused; so is a source that is, or passes
//     through, a symlink resolving outside the context;
//   - `*` `?` `[...]` match within one path segment (Go's filepath.Match,
//     fnmatch(3) FNM_PATHNAME) against the paths .dockerignore keeps; no match
//     is an error;
//   - a file lands at DEST, or at DEST/<name> when DEST ends with '/'; a
//     directory's contents (not the directory itself) land under DEST;
//   - several sources (written or matched) need a DEST ending with '/';
//   - .dockerignore'd paths are never copied, also from inside a copied
//     directory (a symlink directly beside an ignored path is then copied as
//     the file it points to; elsewhere symlinks stay symlinks);
//   - ADD of a local tar archive (plain, gzip, bzip2, xz or zstd, recognised
//     by content: packager/layer/tar_archive.h) unpacks it under DEST, with or
//     without a trailing '/', keeping the members' modes, owners and mtimes
//     (--chown / --chmod still win; see LayerEntry::Extract). Other ADD
//     sources, a compressed file that is not a tar among them, are copied
//     like COPY.
// Whether DEST already is a directory in the base image is not known (base
// layers are not read): a DEST without trailing '/' is always the file name.
#ifndef TRAINPKG_PACKAGER_BUILDER_CONTEXT_COPY_H_
#define TRAINPKG_PACKAGER_BUILDER_CONTEXT_COPY_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/build_context.h"
#include "packager/dockerfile/instruction.h"
#include "packager/layer/layer_entry.h"

namespace trainpkg::packager::builder {

// Entries for `copy` (expanded; from == ""), sources relative to ctx.root().
// `workdir` is absolute. Errors (no location; the caller adds file:line):
// NotFound for a missing source or a pattern with no match (saying when
// .dockerignore excluded it), InvalidArgument for a path or symlink leaving
// the context, a bad destination, bad --chown/--chmod. (An archive's members are
// checked when the layer is written.)
absl::StatusOr<std::vector<LayerEntry>> PlanContextCopy(const BuildContext& ctx,
                                                        const dockerfile::CopyInstruction& copy,
                                                        std::string_view workdir);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_CONTEXT_COPY_H_
