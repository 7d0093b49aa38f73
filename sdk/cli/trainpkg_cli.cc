#include "sdk/cli/trainpkg_cli.h"

#include <iostream>
#include <memory>

#include "packager/run/host_resource_ledger.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/help_command.h"
#include "sdk/cli/help_format.h"
#include "sdk/cli/ssh_replica_command.h"
#include "sdk/cli/usage_errors.h"
#include "sdk/cli/version.h"

namespace trainpkg::cli {
namespace {

// CLI11 reads "--flag=" (an empty value, e.g. gcloud's placeholder worker
// pool) as a flag without value and takes the next argument instead, so
// "--flag=" is passed on as "--flag" "".
std::vector<std::string> SplitEmptyAssignments(int argc, char** argv) {
  std::vector<std::string> args;
  for (int i = argc - 1; i > 0; --i) {  // CLI11 wants them in reverse order
    std::string arg = argv[i];
    if (arg.size() > 3 && arg.rfind("--", 0) == 0 && arg.find('=') == arg.size() - 1) {
      args.push_back("");
      arg.pop_back();
    }
    args.push_back(std::move(arg));
  }
  return args;
}

}  // namespace

TrainpkgCli::TrainpkgCli(size_t columns)
    : app_(
          "Build and push trainer images without a Docker daemon, and run Vertex AI CustomJobs "
          "locally, on Vertex AI, on Kubernetes or on Slurm.",
          "trainpkg") {
  app_.formatter(std::make_shared<WrappingFormatter>(columns));
  app_.set_version_flag("--version", VersionLine());
  // Usage errors: "trainpkg: error: ..." with the nearest command or flag
  // (printed by Main, where the arguments are known).
  app_.failure_message([](const CLI::App*, const CLI::Error&) { return std::string(); });
  app_.require_subcommand(1);
  app_.footer(
      "Examples:\n"
      "  trainpkg build -t 127.0.0.1:5000/trainer:1 .\n"
      "  trainpkg push 127.0.0.1:5000/trainer:1\n"
      "  trainpkg run --config job.yaml --base-output-dir /tmp/out\n"
      "  trainpkg jobs list\n"
      "  trainpkg help run\n"
      "\n"
      "`trainpkg help COMMAND` or `trainpkg COMMAND --help` shows a command's flags; man pages: "
      "trainpkg(1), trainpkg-run(1), ...");
  run_ = AddRunCommand(app_, run_flags_, backend_flags_);
  serve_ = AddServeCommand(app_, serve_flags_);
  jobs_ = AddJobsCommands(app_, jobs_flags_);
  build_ = AddBuildCommand(app_, build_flags_);
  import_ = AddImportCommand(app_, import_flags_);
  images_ = AddImagesCommands(app_, images_flags_);
  push_ = AddPushCommand(app_, push_flags_);
  pull_ = AddPullCommand(app_, pull_flags_);
  login_ = AddLoginCommands(app_, login_flags_);
  hptune_ = AddHptuneCommand(app_, hptune_flags_);
  k8s_render_ = AddK8sCommand(app_, k8s_flags_);
  completion_ = AddCompletionCommand(app_, completion_flags_);
  help_ = AddHelpCommand(app_, help_words_);
  version_ = AddVersionCommand(app_);
  ssh_replica_ = AddSshReplicaCommand(app_, ssh_replica_manifest_);
}

int TrainpkgCli::Main(int argc, char** argv) {
  try {
    std::vector<std::string> args = SplitEmptyAssignments(argc, argv);
    app_.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      return app_.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    }
    std::cerr << DescribeUsageError(app_, std::vector<std::string>(argv + 1, argv + argc), e);
    return kExitUsage;
  }
  if (help_->parsed()) return RunHelpCommand(app_, help_words_, std::cout, std::cerr);
  if (version_->parsed()) {
    std::cout << VersionLine() << "\n";
    return kExitOk;
  }
  if (completion_->parsed()) return RunCompletionCommand(app_, completion_flags_, std::cout);
  // Containers, overlays and network namespaces whose trainpkg process died
  // with its watchdog (packager/run/host_resource_ledger.h) go now, whatever
  // the command.
  packager::run::SweepOrphanedHostResources();
  if (ssh_replica_->parsed()) return SshReplicaCommand(ssh_replica_manifest_, std::cerr);
  if (run_->parsed()) return RunCommand(run_flags_, backend_flags_, std::cout, std::cerr);
  if (k8s_render_->parsed()) return K8sRenderCommand(k8s_flags_, std::cout, std::cerr);
  if (hptune_->parsed()) return HptuneCommand(hptune_flags_, std::cout, std::cerr);
  if (serve_->parsed()) return ServeCommand(serve_flags_, std::cout, std::cerr);
  if (build_->parsed()) return RunBuildCommand(build_flags_, std::cout, std::cerr);
  if (import_->parsed()) return RunImportCommand(import_flags_, std::cout, std::cerr);
  if (images_.images->parsed() || images_.system->parsed()) {
    return RunImagesCommand(images_, images_flags_, std::cin, std::cout, std::cerr);
  }
  if (push_->parsed()) return PushCommand(push_flags_, std::cout, std::cerr);
  if (pull_->parsed()) return PullCommand(pull_flags_, std::cout, std::cerr);
  if (login_.login->parsed() || login_.logout->parsed()) {
    return RunLoginCommand(login_, login_flags_, std::cin, std::cout, std::cerr);
  }
  return RunJobsCommand(jobs_, jobs_flags_, std::cout, std::cerr);
}

}  // namespace trainpkg::cli
