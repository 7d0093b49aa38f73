#include "base/terminal_size.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>

#include "absl/strings/numbers.h"

namespace trainpkg::base {
namespace {

constexpr size_t kMinColumns = 40;
constexpr size_t kDefaultColumns = 80;

}  // namespace

size_t TerminalColumns(int fd) {
  struct winsize size {};
  if (::isatty(fd) && ::ioctl(fd, TIOCGWINSZ, &size) == 0 && size.ws_col > 0) {
    return std::max<size_t>(size.ws_col, kMinColumns);
  }
  size_t columns = 0;
  if (const char* set = std::getenv("COLUMNS");
      set != nullptr && absl::SimpleAtoi(set, &columns) && columns > 0) {
    return std::max(columns, kMinColumns);
  }
  return kDefaultColumns;
}

}  // namespace trainpkg::base
