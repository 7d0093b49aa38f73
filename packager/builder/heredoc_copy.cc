#include "packager/builder/heredoc_copy.h"

#include <string>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/copy_flags.h"
#include "packager/dockerfile/context_path.h"

namespace trainpkg::packager::builder {

absl::StatusOr<std::vector<LayerEntry>> PlanHeredocCopy(const dockerfile::CopyInstruction& copy,
                                                        std::string_view workdir) {
  TP_ASSIGN_OR_RETURN(EntryOverrides overrides, ParseCopyFlags(copy.chown, copy.chmod));
  TP_ASSIGN_OR_RETURN(std::string dest, dockerfile::ResolveDestination(workdir, copy.dest));
  const bool into_dir = !dest.empty() && dest.back() == '/';
  const size_t count = copy.heredocs.size() + copy.sources.size();
  if (count > 1 && !into_dir) {
    return absl::InvalidArgumentError(fmt::format(
        "{} sources are copied, so the destination \"{}\" must be a directory ending with '/'",
        count, copy.dest));
  }
  std::vector<LayerEntry> entries;
  for (const dockerfile::Heredoc& h : copy.heredocs) {
    std::string path = dest;
    if (into_dir) {
      if (h.delimiter.find('/') != std::string::npos || h.delimiter == "." || h.delimiter == "..") {
        return absl::InvalidArgumentError(fmt::format(
            "heredoc <<{} names the file it makes in \"{}\", so its delimiter can't be '.', "
            "'..' or hold a '/'; name the file in the destination instead",
            h.delimiter, copy.dest));
      }
      // BuildKit's rule: into a directory, the delimiter is the file's name.
      path += h.delimiter;
    }
    entries.push_back(LayerEntry::Content(std::move(path), h.body, overrides));
  }
  return entries;
}

}  // namespace trainpkg::packager::builder
