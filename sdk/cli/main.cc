// trainpkg: build and push trainer images, run Vertex AI CustomJobs.
#include <unistd.h>

#include "base/terminal_size.h"
#include "sdk/cli/trainpkg_cli.h"

int main(int argc, char** argv) {
  trainpkg::cli::TrainpkgCli cli(trainpkg::base::TerminalColumns(STDOUT_FILENO));
  return cli.Main(argc, argv);
}
