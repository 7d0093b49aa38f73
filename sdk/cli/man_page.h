// man(1) pages for the trainpkg commands, generated from the command tree
// (command_tree.h): one page per command, trainpkg(1), trainpkg-run(1),
// trainpkg-jobs-list(1), ..., with its synopsis, description, subcommands,
// flags, the examples of its --help and the related pages.
#ifndef TRAINPKG_SDK_CLI_MAN_PAGE_H_
#define TRAINPKG_SDK_CLI_MAN_PAGE_H_

#include <string>
#include <vector>

#include "sdk/cli/command_tree.h"

namespace trainpkg::cli {

// "trainpkg-jobs-list".
std::string ManPageName(const CommandDoc& command);

// The page of `command`, in roff (man macros); `all` gives the related
// pages (parent and subcommands), `version` the footer ("trainpkg 0.1.0").
std::string ManPage(const CommandDoc& command, const std::vector<CommandDoc>& all,
                    const std::string& version);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_MAN_PAGE_H_
