// Invariant checks for train: a failed check is a bug in the caller or in
// trainpkg (never bad input, which gets a Status), so it prints where and why
// and aborts.
#ifndef TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_CHECK_H_
#define TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_CHECK_H_

#include <cstdio>
#include <cstdlib>

#include "fmt/format.h"

#define TP_TRAIN_CHECK(condition, ...)                                                      \
  do {                                                                                      \
    if (!(condition)) [[unlikely]] {                                                        \
      ::fmt::print(stderr, "{}:{}: check failed: {}: {}\n", __FILE__, __LINE__, #condition, \
                   ::fmt::format(__VA_ARGS__));                                             \
      std::abort();                                                                         \
    }                                                                                       \
  } while (0)

#endif  // TRAINPKG_TRAINER_RUNTIME_TRAIN_INTERNAL_CHECK_H_
