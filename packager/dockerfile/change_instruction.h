// `docker import --change` / `docker commit --change`: one Dockerfile
// instruction that edits an image config without a build.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_CHANGE_INSTRUCTION_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_CHANGE_INSTRUCTION_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "packager/dockerfile/instruction.h"

namespace trainpkg::packager::dockerfile {

// Parses `text` as one instruction with the Dockerfile parser's rules (no
// parser directives; `\` escapes). Only the instructions Docker allows in a
// --change are accepted: CMD, ENTRYPOINT, ENV, EXPOSE, LABEL, ONBUILD,
// STOPSIGNAL, USER, VOLUME, WORKDIR. InvalidArgument "--change \"TEXT\": ..."
// for a syntax error, an empty text, more than one instruction or another
// instruction (naming the allowed ones). Variables are not yet expanded
// (ExpandInstruction does that).
absl::StatusOr<Instruction> ParseChangeInstruction(std::string_view text);

}  // namespace trainpkg::packager::dockerfile

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_CHANGE_INSTRUCTION_H_
