// trainpkg: run Vertex AI CustomJobs locally.
#include <iostream>
#include <string>
#include <vector>

#include "CLI/CLI.hpp"
#include "packager/run/host_resource_ledger.h"
#include "sdk/cli/build_command.h"
#include "sdk/cli/exit_codes.h"
#include "sdk/cli/help_command.h"
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
#include "sdk/cli/usage_errors.h"
#include "sdk/cli/version.h"

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

int main(int argc, char** argv) {
  using namespace trainpkg::cli;
  CLI::App app(
      "Build and push trainer images without a Docker daemon, and run Vertex AI CustomJobs "
      "locally, on Vertex AI, on Kubernetes or on Slurm.",
      "trainpkg");
  app.set_version_flag("--version", VersionLine());
  // Usage errors: "trainpkg: error: ..." with the nearest command or flag
  // (printed below, where the arguments are known).
  app.failure_message([](const CLI::App*, const CLI::Error&) { return std::string(); });
  app.require_subcommand(1);
  RunFlags run_flags;
  BackendFlags backend_flags;
  CLI::App* run = AddRunCommand(app, run_flags, backend_flags);
  ServeFlags serve_flags;
  CLI::App* serve = AddServeCommand(app, serve_flags);
  JobsFlags jobs_flags;
  JobsCommands jobs = AddJobsCommands(app, jobs_flags);
  BuildFlags build_flags;
  CLI::App* build = AddBuildCommand(app, build_flags);
  ImportFlags import_flags;
  CLI::App* import = AddImportCommand(app, import_flags);
  ImagesFlags images_flags;
  ImagesCommands images = AddImagesCommands(app, images_flags);
  PushFlags push_flags;
  CLI::App* push = AddPushCommand(app, push_flags);
  PullFlags pull_flags;
  CLI::App* pull = AddPullCommand(app, pull_flags);
  LoginFlags login_flags;
  LoginCommands login = AddLoginCommands(app, login_flags);
  HptuneFlags hptune_flags;
  CLI::App* hptune = AddHptuneCommand(app, hptune_flags);
  K8sRenderFlags k8s_flags;
  CLI::App* k8s_render = AddK8sCommand(app, k8s_flags);
  std::vector<std::string> help_words;
  CLI::App* help = AddHelpCommand(app, help_words);
  CLI::App* version = AddVersionCommand(app);
  try {
    std::vector<std::string> args = SplitEmptyAssignments(argc, argv);
    app.parse(args);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0)
      return app.exit(e) == 0 ? kExitOk : kExitUsage;  // --help, --version
    std::cerr << DescribeUsageError(app, std::vector<std::string>(argv + 1, argv + argc), e);
    return kExitUsage;
  }
  if (help->parsed()) return RunHelpCommand(app, help_words, std::cout, std::cerr);
  if (version->parsed()) {
    std::cout << VersionLine() << "\n";
    return kExitOk;
  }
  // Containers, overlays and network namespaces whose trainpkg process died
  // with its watchdog (packager/run/host_resource_ledger.h) go now, whatever
  // the command.
  trainpkg::packager::run::SweepOrphanedHostResources();
  if (run->parsed()) return RunCommand(run_flags, backend_flags, std::cout, std::cerr);
  if (k8s_render->parsed()) return K8sRenderCommand(k8s_flags, std::cout, std::cerr);
  if (hptune->parsed()) return HptuneCommand(hptune_flags, std::cout, std::cerr);
  if (serve->parsed()) return ServeCommand(serve_flags, std::cout, std::cerr);
  if (build->parsed()) return RunBuildCommand(build_flags, std::cout, std::cerr);
  if (import->parsed()) return RunImportCommand(import_flags, std::cout, std::cerr);
  if (images.images->parsed() || images.system->parsed()) {
    return RunImagesCommand(images, images_flags, std::cin, std::cout, std::cerr);
  }
  if (push->parsed()) return PushCommand(push_flags, std::cout, std::cerr);
  if (pull->parsed()) return PullCommand(pull_flags, std::cout, std::cerr);
  if (login.login->parsed() || login.logout->parsed()) {
    return RunLoginCommand(login, login_flags, std::cin, std::cout, std::cerr);
  }
  return RunJobsCommand(jobs, jobs_flags, std::cout, std::cerr);
}
