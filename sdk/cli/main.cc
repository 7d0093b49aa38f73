// trainpkg: build and push trainer images, run Vertex AI CustomJobs.
#include <unistd.h>

#include "sdk/cli/help_format.h"
#include "sdk/cli/trainpkg_cli.h"

int main(int argc, char** argv) {
  trainpkg::cli::TrainpkgCli cli(trainpkg::cli::TerminalColumns(STDOUT_FILENO));
  return cli.Main(argc, argv);
}
