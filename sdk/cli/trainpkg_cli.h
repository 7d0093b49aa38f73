// The `trainpkg` command line: every command and flag, declared once. main()
// parses and runs it; the generated docs (man pages, shell completion) read
// the same tree, so they list exactly what the binary accepts.
#ifndef TRAINPKG_SDK_CLI_TRAINPKG_CLI_H_
#define TRAINPKG_SDK_CLI_TRAINPKG_CLI_H_

#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "sdk/cli/backend_flags.h"
#include "sdk/cli/build_command.h"
#include "sdk/cli/completion.h"
#include "sdk/cli/hptune_command.h"
#include "sdk/cli/images_command.h"
#include "sdk/cli/import_command.h"
#include "sdk/cli/jobs_command.h"
#include "sdk/cli/k8s_command.h"
#include "sdk/cli/login_command.h"
#include "sdk/cli/pull_command.h"
#include "sdk/cli/push_command.h"
#include "sdk/cli/run_command.h"
#include "sdk/cli/serve_command.h"

namespace trainpkg::cli {

class TrainpkgCli {
 public:
  // `columns`: the width help text is wrapped to (the terminal's, for main).
  explicit TrainpkgCli(size_t columns = 80);
  TrainpkgCli(const TrainpkgCli&) = delete;
  TrainpkgCli& operator=(const TrainpkgCli&) = delete;

  const CLI::App& app() const { return app_; }

  // Parses argv and runs the command it names; the process's exit code.
  // Usage errors go to stderr as usage_errors.h says, exit 2.
  int Main(int argc, char** argv);

 private:
  CLI::App app_;
  RunFlags run_flags_;
  BackendFlags backend_flags_;
  ServeFlags serve_flags_;
  JobsFlags jobs_flags_;
  BuildFlags build_flags_;
  ImportFlags import_flags_;
  ImagesFlags images_flags_;
  PushFlags push_flags_;
  PullFlags pull_flags_;
  LoginFlags login_flags_;
  HptuneFlags hptune_flags_;
  K8sRenderFlags k8s_flags_;
  CompletionFlags completion_flags_;
  std::vector<std::string> help_words_;
  std::string ssh_replica_manifest_;

  CLI::App* run_ = nullptr;
  CLI::App* ssh_replica_ = nullptr;
  CLI::App* serve_ = nullptr;
  JobsCommands jobs_;
  CLI::App* build_ = nullptr;
  CLI::App* import_ = nullptr;
  ImagesCommands images_;
  CLI::App* push_ = nullptr;
  CLI::App* pull_ = nullptr;
  LoginCommands login_;
  CLI::App* hptune_ = nullptr;
  CLI::App* k8s_render_ = nullptr;
  CLI::App* completion_ = nullptr;
  CLI::App* help_ = nullptr;
  CLI::App* version_ = nullptr;
};

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_TRAINPKG_CLI_H_
