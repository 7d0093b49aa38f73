// What the SSH backend runs on a host, as POSIX sh text (no bash, no
// Python): the probe that reads the host's home and its TCP ports in use,
// the setup that writes a job's replica wrapper and environments, and the
// command line that starts one replica under the wrapper.
//
// The wrapper (run.sh) runs the replica with setsid, so it leads a process
// group of its own, and records that group in <replica>.pgid. A watcher
// reads the ssh channel (its stdin) until end of file: when the channel
// closes before the replica ended (the connection dropped, the supervisor
// died, ssh was killed) it sends SIGTERM to the group and SIGKILL after the
// grace period (polled each second, so the watcher is gone within a second
// of the group). When the replica ends, what is left of its group is killed
// and the wrapper exits with the replica's status (128+N for signal N).
#ifndef TRAINPKG_SDK_SSH_INTERNAL_REMOTE_SCRIPT_H_
#define TRAINPKG_SDK_SSH_INTERNAL_REMOTE_SCRIPT_H_

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "absl/time/time.h"
#include "base/shell_quote.h"

namespace trainpkg::sdk::ssh::internal {

using base::ShellQuote;

// Where a host keeps the backend's files, relative to the login's $HOME.
inline constexpr char kRemoteCacheDir[] = ".cache/trainpkg/ssh";

// The probe: prints "home <$HOME>", "range <low> <high>" (the ephemeral
// port range), then "have <hex>" for each of `executables` (digest hex ->
// file name) already in the host's cache, then the lines of /proc/net/tcp
// and /proc/net/tcp6 after a "tcp" line.
std::string ProbeScript(const std::map<std::string, std::string>& executables);

struct HostProbe {
  std::string home;
  int port_low = 0;
  int port_high = 0;
  std::vector<std::string> cached;  // digest hexes the host has
  std::vector<int> ports_in_use;    // local ports of every TCP socket, any state
};

// InvalidArgument saying what is missing when `output` is not a probe's.
absl::StatusOr<HostProbe> ParseProbe(absl::string_view output);

// `count` distinct ports in the host's ephemeral range that no socket of
// the probe uses, starting at a point derived from `seed`. ResourceExhausted
// when the range has fewer free ports.
absl::StatusOr<std::vector<int>> ChooseFreePorts(const HostProbe& probe, size_t count,
                                                 uint64_t seed);

// Copies standard input into the cache as <cache>/sha256/<hex>/<name>,
// atomically (a partial copy is never seen), mode 0755.
std::string CacheInsertCommand(absl::string_view hex, absl::string_view name);
// Where that file is on the host, relative to $HOME.
std::string CachedExecutable(absl::string_view hex, absl::string_view name);

// The setup of one host: creates `job_dir` (0700; absolute), writes run.sh
// with the watcher's `grace` (whole seconds, at least 1), one
// <replica>.env per entry of `envs` (replica name -> its variables, as
// `export` lines) and each of `files` (name in job_dir -> content), all 0600.
std::string SetupScript(absl::string_view job_dir, absl::Duration grace,
                        const std::map<std::string, std::map<std::string, std::string>>& envs,
                        const std::map<std::string, std::string>& files = {});

// Finds `program` (a name on the login's PATH, or a path) and runs
// `<program> version`: prints "path <absolute path>" then its output, or
// "missing" when there is no such executable.
std::string TrainpkgVersionCommand(absl::string_view program);

struct RemoteTrainpkg {
  std::string path;     // "" when missing
  std::string version;  // its `trainpkg version` line
};
// Reads TrainpkgVersionCommand's output.
RemoteTrainpkg ParseTrainpkgVersion(absl::string_view output);

// The remote command (one string, as ssh sends it) that runs `argv`
// (argv[0] is the program) in `cwd` under the wrapper of `job_dir`.
std::string ReplicaCommand(absl::string_view job_dir, absl::string_view replica,
                           absl::string_view cwd, const std::vector<std::string>& argv);

// Sends `signal` (a name: TERM, KILL) to the group of `replica`; succeeds
// when there is none.
std::string SignalCommand(absl::string_view job_dir, absl::string_view replica,
                          absl::string_view signal);

// Removes `job_dir`.
std::string CleanupCommand(absl::string_view job_dir);

}  // namespace trainpkg::sdk::ssh::internal

#endif  // TRAINPKG_SDK_SSH_INTERNAL_REMOTE_SCRIPT_H_
