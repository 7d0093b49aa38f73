// One logical line -> one typed Instruction.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_INSTRUCTION_PARSER_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_INSTRUCTION_PARSER_H_

#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/dockerfile/instruction.h"
#include "packager/dockerfile/internal/logical_lines.h"

namespace trainpkg::packager::dockerfile::internal {

// InvalidArgument "path:line: KEYWORD: ..." on any syntax error; warnings
// ("path:line: ...") are appended to `warnings`.
absl::StatusOr<Instruction> ParseInstruction(const LogicalLine& line, char escape,
                                             std::string_view path,
                                             std::vector<std::string>& warnings);

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_INSTRUCTION_PARSER_H_
