// `trainpkg push` on a pseudo-terminal 60, 80 and 200 columns wide, as a
// person sees it: the progress is drawn in place (one row per blob) and no
// row is wider than the terminal, so the redraw never garbles.
#include <pty.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/layout.h"
#include "tests/registry/registry_server.h"
#include "tests/registry/test_image.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::cli {
namespace {

using registry::testing::PseudoRandomBytes;
using registry::testing::RegistryServer;
using ::testing::HasSubstr;

// Runs `argv` with its standard streams on a new pseudo-terminal of
// `columns` columns; everything it wrote there.
std::string RunOnPty(const std::vector<std::string>& argv, unsigned short columns) {
  struct winsize size {};
  size.ws_row = 40;
  size.ws_col = columns;
  int terminal = -1;
  const pid_t pid = ::forkpty(&terminal, nullptr, nullptr, &size);
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& arg : argv) args.push_back(const_cast<char*>(arg.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  EXPECT_GT(pid, 0) << "forkpty: " << std::strerror(errno);
  std::string output;
  char buffer[4096];
  for (;;) {
    const ssize_t n = ::read(terminal, buffer, sizeof buffer);
    if (n > 0) {
      output.append(buffer, static_cast<size_t>(n));
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      break;  // EIO: the child closed its side
    }
  }
  ::close(terminal);
  int status = 0;
  ::waitpid(pid, &status, 0);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
  return output;
}

// The progress rows drawn: the output without the cursor-up and clear-line
// sequences and carriage returns, split at newlines, those that start with
// a blob's short id.
std::vector<std::string> ProgressRows(const std::string& output) {
  std::vector<std::string> rows;
  std::istringstream in(std::regex_replace(output, std::regex("\x1b\\[[0-9]*[AK]|\r"), ""));
  const std::regex blob_row("^[0-9a-f]{12}: .*");
  for (std::string row; std::getline(in, row);) {
    if (std::regex_match(row, blob_row)) rows.push_back(row);
  }
  return rows;
}

TEST(CliProgressPtyTest, PushProgressFitsSixtyEightyAndTwoHundredColumns) {
  for (unsigned short columns : {60, 80, 200}) {
    // A registry of its own each time: no blob is there to mount, so every
    // one is pushed and its progress drawn.
    RegistryServer server;
    ASSERT_THAT(server.Start({}), IsOk());
    absl::StatusOr<oci::Layout> layout = oci::Layout::Create(server.dir() / "src");
    ASSERT_THAT(layout, IsOk());
    ASSERT_TRUE(registry::testing::WriteTestImage(
                    *layout, "v1", {PseudoRandomBytes(3 << 20, 1), PseudoRandomBytes(2 << 20, 2)})
                    .ok());
    const std::string output =
        RunOnPty({"/usr/bin/env", "DOCKER_CONFIG=" + (server.dir() / "docker").string(),
                  "TRAINPKG_HOME=" + (server.dir() / "home").string(), TRAINPKG_PATH, "push",
                  "oci:" + (server.dir() / "src").string() + ":v1", server.host() + "/pty/app:v1"},
                 columns);
    const std::vector<std::string> rows = ProgressRows(output);
    ASSERT_FALSE(rows.empty()) << output;
    for (const std::string& row : rows) {
      EXPECT_LT(row.size(), columns) << columns << " columns: \"" << row << "\"";
    }
    // Drawn in place, with a bar where there is room for one.
    EXPECT_THAT(output, HasSubstr("\x1b[2K")) << columns;
    EXPECT_THAT(output, HasSubstr(": Pushing [")) << columns;
    EXPECT_THAT(output, HasSubstr(": Pushed")) << columns;
  }
}

}  // namespace
}  // namespace trainpkg::cli
