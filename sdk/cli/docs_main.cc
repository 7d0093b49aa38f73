// trainpkg-docs DIR: writes what is generated from trainpkg's command line
// into DIR laid out as /usr/share is: man/man1/<command>.1 for every command,
// bash-completion/completions/trainpkg and zsh/vendor-completions/_trainpkg.
// The build runs it into <build>/share; a file is rewritten only when its
// text changes.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>

#include "base/file_util.h"
#include "sdk/cli/command_tree.h"
#include "sdk/cli/completion.h"
#include "sdk/cli/man_page.h"
#include "sdk/cli/trainpkg_cli.h"
#include "sdk/cli/version.h"

namespace {

namespace fs = std::filesystem;

bool Write(const fs::path& path, const std::string& text) {
  if (auto same = trainpkg::base::ReadFile(path.string()); same.ok() && *same == text) return true;
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  if (!out.flush()) {
    std::cerr << "trainpkg-docs: error: writing " << path.string() << "\n";
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: trainpkg-docs DIR\n";
    return 2;
  }
  const fs::path dir = argv[1];
  trainpkg::cli::TrainpkgCli cli;
  const std::vector<trainpkg::cli::CommandDoc> commands =
      trainpkg::cli::DescribeCommands(cli.app());
  const std::string version = trainpkg::cli::VersionLine();
  bool ok = true;
  for (const trainpkg::cli::CommandDoc& command : commands) {
    ok &= Write(dir / "man" / "man1" / (trainpkg::cli::ManPageName(command) + ".1"),
                trainpkg::cli::ManPage(command, commands, version.substr(0, version.find(" ("))));
  }
  ok &= Write(dir / "bash-completion" / "completions" / "trainpkg",
              trainpkg::cli::BashCompletion(cli.app()));
  ok &= Write(dir / "zsh" / "vendor-completions" / "_trainpkg",
              trainpkg::cli::ZshCompletion(cli.app()));
  return ok ? 0 : 1;
}
