#include "packager/builder/run_instruction_step.h"

#include <cctype>
#include <optional>

#include "base/status_macros.h"
#include "packager/builder/layer_key.h"

namespace trainpkg::packager::builder {
namespace {

namespace df = dockerfile;

// A file name for a heredoc script: its delimiter when that is a plain name.
std::string ScriptName(const std::string& delimiter) {
  bool plain = !delimiter.empty() && delimiter != "." && delimiter != "..";
  for (char c : delimiter) {
    plain =
        plain && (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-');
  }
  return plain ? delimiter : "script";
}

// The argv of a RUN: exec form as written, shell form through the SHELL. A
// heredoc script that starts with "#!" is run directly from a file mounted
// at /dev/pipes/<delimiter> (as BuildKit does), added to `files`.
std::vector<std::string> RunArgs(const df::RunInstruction& run, const StageConfig& config,
                                 std::vector<RunCommand::File>* files) {
  if (run.command.exec_form) return run.command.args;
  if (run.script && run.heredocs.at(0).body.rfind("#!", 0) == 0) {
    std::string path = "/dev/pipes/" + ScriptName(run.heredocs[0].delimiter);
    files->push_back(RunCommand::File{path, run.heredocs[0].body});
    return {path};
  }
  std::vector<std::string> args = config.shell;
  args.push_back(run.command.args.empty() ? "" : run.command.args.front());
  return args;
}

}  // namespace

absl::StatusOr<LayerOrigin> RunInstructionStep(const BuildSession& session,
                                               const df::Instruction& instruction,
                                               const df::RunInstruction& run,
                                               const std::vector<std::string>& args_in_scope,
                                               const std::vector<std::string>& proxy_args,
                                               const oci::HistoryEntry& history,
                                               StageState& state) {
  const oci::ContainerConfig& image = state.config.image.config;
  RunCommand command;
  command.args = RunArgs(run, state.config, &command.files);
  command.env = image.env;
  // ARGs reach the command's environment only, never the image config.
  command.env.insert(command.env.end(), args_in_scope.begin(), args_in_scope.end());
  command.network = run.network.empty()     ? session.network
                    : run.network == "none" ? RunNetwork::kNone
                                            : RunNetwork::kDefault;
  command.extra_hosts = session.add_hosts;
  command.cwd = image.working_dir.empty() ? "/" : image.working_dir;
  command.user = image.user;
  std::vector<std::string> file_keys;
  for (const RunCommand::File& f : command.files) file_keys.push_back(f.path + "\n" + f.content);
  std::vector<std::string> sandbox;
  // What the command could see differs with these, so its output may too.
  if (command.network == RunNetwork::kNone) sandbox.push_back("network none");
  for (const run::HostEntry& host : command.extra_hosts) sandbox.push_back("add-host " + host.name);
  const std::string key =
      RunLayerKey(state.chain, history.created_by, command.args, command.env, command.cwd,
                  command.user, session.layer_options, file_keys, sandbox);
  // After the key: the proxy args say how to reach things, not what is built.
  command.env.insert(command.env.end(), proxy_args.begin(), proxy_args.end());
  // Kept until the layer is written: the layer source reads from it.
  std::optional<ScopedWorkDir> work;
  auto run_command = [&]() -> absl::StatusOr<LayerSource> {
    const auto [base, built_layers] = SplitStage(state, *session.store);
    work.emplace(session.work_root);
    return session.runner->Run(base, built_layers, command, work->path());
  };
  TP_ASSIGN_OR_RETURN(StepLayer layer, CachedOrBuiltLayer(session, instruction, key, run_command));
  AppendLayer(key, layer.layer, history, state);
  state.has_rootfs_files = true;
  return layer.origin;
}

}  // namespace trainpkg::packager::builder
