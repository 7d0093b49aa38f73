// COPY/ADD heredoc sources (`COPY <<EOF /etc/app.conf`) as layer entries:
// each heredoc becomes a file holding its (already expanded) body, at
// DEST/<delimiter> when DEST ends with '/', else at DEST itself, which then
// must be the copy's only source. Mode 0644 unless --chmod, owner root unless
// --chown; ADD never unpacks one. The files read nothing from the build
// context; their bytes are part of the layer key (layer_key.h).
#ifndef TRAINPKG_PACKAGER_BUILDER_HEREDOC_COPY_H_
#define TRAINPKG_PACKAGER_BUILDER_HEREDOC_COPY_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/dockerfile/instruction.h"
#include "packager/layer/layer_entry.h"

namespace trainpkg::packager::builder {

// Entries for `copy.heredocs` (expanded); `workdir` is absolute. Errors (no
// location; the caller adds file:line): InvalidArgument for a bad
// destination, several sources (heredocs and others, as written) into a DEST
// without a trailing '/', a delimiter that is no file name ('/', ".", ".."),
// bad --chown/--chmod.
absl::StatusOr<std::vector<LayerEntry>> PlanHeredocCopy(const dockerfile::CopyInstruction& copy,
                                                        std::string_view workdir);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_HEREDOC_COPY_H_
