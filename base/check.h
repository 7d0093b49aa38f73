// Invariant checks: a failed check is a bug in trainpkg (never bad input, which
// gets a Status), so it prints where and why and aborts.
//
//   TP_CHECK(a.shape() == b.shape(), "shapes {} and {}", ShapeToString(a.shape()), ...);
#ifndef TRAINPKG_BASE_CHECK_H_
#define TRAINPKG_BASE_CHECK_H_

#include <cstdio>
#include <cstdlib>

#include "fmt/format.h"

#define TP_CHECK(condition, ...)                                                            \
  do {                                                                                      \
    if (!(condition)) [[unlikely]] {                                                        \
      ::fmt::print(stderr, "{}:{}: check failed: {}: {}\n", __FILE__, __LINE__, #condition, \
                   ::fmt::format(__VA_ARGS__));                                             \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)

#endif  // TRAINPKG_BASE_CHECK_H_
