// `trainpkg images`: the local image store, as `docker images` lists it.
#ifndef TRAINPKG_SDK_CLI_IMAGES_COMMAND_H_
#define TRAINPKG_SDK_CLI_IMAGES_COMMAND_H_

#include <ostream>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

struct ImagesFlags {
  bool no_trunc = false;
};

CLI::App* AddImagesCommand(CLI::App& app, ImagesFlags& flags);

// REPOSITORY TAG IMAGE ID CREATED SIZE, one line per tag. 0, or 1 after an error.
int RunImagesCommand(const ImagesFlags& flags, std::ostream& out, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_IMAGES_COMMAND_H_
