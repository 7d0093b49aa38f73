// Bounded-memory checks: run a piece of work in a child process and read how
// much resident memory it peaked at, so a test can assert that hostile input
// (a decompression bomb, a deeply nested document) ends with a clear error
// and bounded memory instead of exhausting the machine.
#ifndef TRAINPKG_TESTS_TEST_UTIL_PEAK_RSS_H_
#define TRAINPKG_TESTS_TEST_UTIL_PEAK_RSS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

namespace trainpkg::testing {

struct ChildRun {
  int exit_code = -1;     // the child's exit status; -1 when it was killed by a signal
  int signal = 0;         // the signal that killed it, 0 when it exited
  int64_t peak_rss_kib = 0;  // the child's maximum resident set size (getrusage ru_maxrss)
  std::string out;        // for RunCommandMeasured: stdout and stderr together
};

// Forks, runs `body` in the child and exits with what it returns (0..255).
// The child gets a fresh address space copy of the test, so the peak counts
// what the test binary already held plus what `body` allocated; keep bodies
// to the code under test. The child must not touch gtest (assert in the
// parent on the returned code). `address_space_limit_bytes` > 0 sets
// RLIMIT_AS in the child, so a runaway allocation fails there instead of
// exhausting the machine. An exception escaping `body` (std::bad_alloc at
// that limit) ends the child with SIGABRT, its message on stderr.
ChildRun RunInChildMeasured(const std::function<int()>& body,
                            int64_t address_space_limit_bytes = 0);

// Runs `argv` (argv[0] looked up in PATH) with stdin from /dev/null and
// stdout+stderr captured, and reports its exit and peak RSS.
ChildRun RunCommandMeasured(const std::vector<std::string>& argv);

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TEST_UTIL_PEAK_RSS_H_
