// How wide the terminal is that a program writes to, for output laid out to
// fit it (wrapped --help, push/pull progress lines).
#ifndef TRAINPKG_BASE_TERMINAL_SIZE_H_
#define TRAINPKG_BASE_TERMINAL_SIZE_H_

#include <cstddef>

namespace trainpkg::base {

// The width to write for on `fd`: the terminal's columns when `fd` is one
// (asked anew at every call, so a resized window is followed), else
// $COLUMNS when it is a number, else 80; never under 40.
size_t TerminalColumns(int fd);

}  // namespace trainpkg::base

#endif  // TRAINPKG_BASE_TERMINAL_SIZE_H_
