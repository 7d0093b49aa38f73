// Helpers shared by the sdk tests: temporary job store homes, job specs
// running replica_probe, and checks that processes are gone.
#ifndef TRAINPKG_TESTS_SDK_SDK_TEST_UTIL_H_
#define TRAINPKG_TESTS_SDK_SDK_TEST_UTIL_H_

#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "absl/time/time.h"
#include "jobspec/custom_job.h"
#include "tests/test_util/file.h"

namespace trainpkg::sdk::testing {

using ::trainpkg::testing::TempDir;

// A fresh directory under $TEST_TMPDIR or /tmp, removed on destruction.
struct PoolArgs {
  int64_t replica_count = 1;
  std::vector<std::string> args;
};

// A valid job whose pools run `executable` (as "local:<executable>") with
// the given args; an empty PoolArgs{0, {}} is a placeholder pool.
jobspec::CustomJob MakeJob(const std::string& executable, const std::vector<PoolArgs>& pools);

// Path of the replica_probe test program.
std::string ReplicaProbePath();

// True when `pid` no longer exists or is a zombie.
bool ProcessGone(int pid);

// This process's environment with `extra` on top, as NAME=value entries.
std::vector<std::string> EnvironmentWith(const std::map<std::string, std::string>& extra);

// Null-terminated char* views of `strings`, for exec; they point into
// `strings`, which must outlive them.
std::vector<char*> CStrings(std::vector<std::string>& strings);

// Starts `argv` (argv[0] a path) with stdin from /dev/null, stdout and
// stderr to `out_file`, and this process's environment plus `extra_env`.
// Returns its pid, or -1 when it could not be started.
int SpawnWithOutput(std::vector<std::string> argv, const std::filesystem::path& out_file,
                    const std::map<std::string, std::string>& extra_env);

// Waits for child `pid`: its exit code, or 128 + the signal that killed it.
int WaitExitCode(int pid);

// Polls `condition` every 20 ms until it holds or `timeout` passes.
bool WaitFor(const std::function<bool()>& condition, absl::Duration timeout);

// Pids named by the files "<prefix><pid>" in `dir` (replica_probe --pid-dir).
std::vector<int> PidsInDir(const std::filesystem::path& dir, const std::string& prefix);

}  // namespace trainpkg::sdk::testing

#endif  // TRAINPKG_TESTS_SDK_SDK_TEST_UTIL_H_
