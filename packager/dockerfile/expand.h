// Variable substitution over a parsed instruction, in exactly the words
// Docker substitutes: FROM (image, --platform), ARG defaults, ENV and LABEL
// keys and values, WORKDIR, USER, STOPSIGNAL, EXPOSE, VOLUME, and COPY/ADD
// sources, destination, --from, --chown and --chmod, and the bodies of
// COPY/ADD heredocs whose delimiter is unquoted (ExpandHeredocBody). RUN
// (heredocs included), CMD, ENTRYPOINT, SHELL, HEALTHCHECK, MAINTAINER and
// ONBUILD are returned unchanged (the shell does its own expansion at run
// time).
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_EXPAND_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_EXPAND_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "packager/dockerfile/instruction.h"
#include "packager/dockerfile/var_scope.h"

namespace trainpkg::packager::dockerfile {

// The instruction with its words expanded against `scope` (quotes removed).
// Also checks what only the expanded words can show: EXPOSE port specs,
// empty VOLUME/WORKDIR/USER, remote ADD sources. Errors: InvalidArgument
// "path:line: KEYWORD: ...". Does not modify `scope`: the caller applies
// ARG/ENV afterwards (every pair of one ENV line sees the values before it).
absl::StatusOr<Instruction> ExpandInstruction(const Instruction& instr, const VarScope& scope,
                                              char escape, std::string_view path);

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_EXPAND_H_
