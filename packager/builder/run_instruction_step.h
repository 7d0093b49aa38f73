// RUN: the command runs over the stage's files (StageRunner: runc over an
// overlay of the base and the build's layers) and what it changed is the
// layer. Its argv is the exec form as written, or the shell form through the
// stage's SHELL (a heredoc script starting with "#!" runs directly from
// /dev/pipes/<delimiter>, as BuildKit runs it); its environment the stage's
// Env, then the ARGs in scope, then the predefined proxy args; its cwd the
// WorkingDir ("/" when unset) and its user the stage's User.
//
// The cache key is BuildKit's exec op's: the chain so far, the instruction,
// argv, environment without the proxy args, cwd, user, the layer options,
// the mounted script files, and the sandbox (network none, the added host
// names; not their addresses, which say how to reach things, not what is
// built). So a rebuild with the same inputs takes the layer from the cache
// and runs nothing.
#ifndef TRAINPKG_PACKAGER_BUILDER_RUN_INSTRUCTION_STEP_H_
#define TRAINPKG_PACKAGER_BUILDER_RUN_INSTRUCTION_STEP_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "packager/builder/build_session.h"
#include "packager/builder/layer_step.h"
#include "packager/builder/stage_state.h"
#include "packager/dockerfile/instruction.h"
#include "registry/oci/image_config.h"

namespace trainpkg::packager::builder {

// `run` is the body of `instruction` (expanded); `history` its entry, whose
// created_by is the instruction as written (part of the key); `args_in_scope` and
// `proxy_args` are "NAME=value" (dockerfile::ExpandedStage's run_args and
// run_proxy_args of it). Appends the layer to `state` and marks it as
// having files only its rootfs holds. Errors: the runner's and the layer
// writer's, prefixed with the instruction's line (a failing command:
// Aborted "exited with code N" and the output's tail).
absl::StatusOr<LayerOrigin> RunInstructionStep(const BuildSession& session,
                                               const dockerfile::Instruction& instruction,
                                               const dockerfile::RunInstruction& run,
                                               const std::vector<std::string>& args_in_scope,
                                               const std::vector<std::string>& proxy_args,
                                               const oci::HistoryEntry& history,
                                               StageState& state);

}  // namespace trainpkg::packager::builder

#endif  // TRAINPKG_PACKAGER_BUILDER_RUN_INSTRUCTION_STEP_H_
