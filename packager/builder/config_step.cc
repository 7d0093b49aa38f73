#include "packager/builder/config_step.h"

#include <variant>

#include "packager/builder/stage_config.h"

namespace trainpkg::packager::builder {

absl::Status ConfigStep(const BuildSession& session, const dockerfile::Instruction& instruction,
                        const oci::HistoryEntry& history, StageState& state) {
  absl::Status applied = ApplyMetadata(instruction, &state.config);
  if (!applied.ok()) return AtLine(*session.file, instruction, applied);
  if (!std::holds_alternative<dockerfile::ArgInstruction>(instruction.body)) {
    state.config.image.history.push_back(history);
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::builder
