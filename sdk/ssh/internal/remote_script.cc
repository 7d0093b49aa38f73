#include "sdk/ssh/internal/remote_script.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"

namespace trainpkg::sdk::ssh::internal {
namespace {

// The wrapper: run.sh ENV_FILE CWD PROGRAM [ARG...]. @GRACE@ is replaced.
constexpr char kWrapper[] =
    R"(# trainpkg: runs one replica of a job (sdk/ssh/internal/remote_script.h)
env_file=$1; cwd=$2; shift 2
pgid_file=${env_file%.env}.pgid
. "$env_file" || exit 127
rm -f "$env_file"
cd "$cwd" || exit 127
exec 3<&0
setsid "$@" </dev/null 3<&- &
pid=$!
echo "$pid" >"$pgid_file"
(
  cat >/dev/null
  kill -TERM "-$pid" 2>/dev/null || exit 0
  n=0
  while [ "$n" -lt @GRACE@ ] && kill -0 "-$pid" 2>/dev/null; do sleep 1; n=$((n + 1)); done
  kill -KILL "-$pid" 2>/dev/null
) <&3 >/dev/null 2>&1 &
watcher=$!
exec 3<&-
wait "$pid"
status=$?
kill "$watcher" 2>/dev/null
kill -KILL "-$pid" 2>/dev/null
rm -f "$pgid_file"
exit "$status"
)";

bool ValidEnvName(absl::string_view name) {
  if (name.empty() || absl::ascii_isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '_';
  });
}

// A here-document delimiter that is no line of `text`.
std::string Delimiter(absl::string_view text) {
  std::string delimiter = "TRAINPKG_EOF";
  std::set<absl::string_view> lines;
  for (absl::string_view line : absl::StrSplit(text, '\n')) lines.insert(line);
  while (lines.contains(delimiter)) delimiter += "_";
  return delimiter;
}

// `cat > path <<'DELIM'` of `content` (which ends with a newline).
std::string WriteFile(absl::string_view path, absl::string_view content) {
  const std::string delimiter = Delimiter(content);
  return absl::StrCat("cat >", ShellQuote(path), " <<'", delimiter, "'\n", content, delimiter,
                      "\n");
}

}  // namespace

std::string ProbeScript(const std::map<std::string, std::string>& executables) {
  std::string script =
      "echo \"home $HOME\"\n"
      "printf 'range %s %s\\n' $(cat /proc/sys/net/ipv4/ip_local_port_range)\n";
  for (const auto& [hex, name] : executables) {
    absl::StrAppend(&script, "[ -x \"$HOME\"/", ShellQuote(CachedExecutable(hex, name)),
                    " ] && echo have ", hex, "\n");
  }
  absl::StrAppend(&script, "echo tcp\ncat /proc/net/tcp /proc/net/tcp6 2>/dev/null\nexit 0\n");
  return script;
}

absl::StatusOr<HostProbe> ParseProbe(absl::string_view output) {
  HostProbe probe;
  bool tcp = false;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (tcp) {
      // "  0: 0100007F:1F90 00000000:0000 0A ..." (sl, local, remote, state...)
      std::vector<absl::string_view> fields =
          absl::StrSplit(line, absl::ByAnyChar(" \t"), absl::SkipEmpty());
      if (fields.size() < 2 || !absl::EndsWith(fields[0], ":")) continue;
      size_t colon = fields[1].rfind(':');
      uint32_t port = 0;
      if (colon != absl::string_view::npos &&
          absl::SimpleHexAtoi(fields[1].substr(colon + 1), &port)) {
        probe.ports_in_use.push_back(static_cast<int>(port));
      }
    } else if (absl::ConsumePrefix(&line, "home ")) {
      probe.home = std::string(line);
    } else if (absl::ConsumePrefix(&line, "range ")) {
      std::vector<absl::string_view> range = absl::StrSplit(line, ' ', absl::SkipEmpty());
      if (range.size() != 2 || !absl::SimpleAtoi(range[0], &probe.port_low) ||
          !absl::SimpleAtoi(range[1], &probe.port_high)) {
        return absl::InvalidArgumentError(
            absl::StrCat("unreadable ephemeral port range \"", line, "\""));
      }
    } else if (absl::ConsumePrefix(&line, "have ")) {
      probe.cached.push_back(std::string(line));
    } else if (line == "tcp") {
      tcp = true;
    }
  }
  if (probe.home.empty() || !absl::StartsWith(probe.home, "/")) {
    return absl::InvalidArgumentError("the host's $HOME is not an absolute path");
  }
  if (probe.port_low < 1 || probe.port_high > 65535 || probe.port_low > probe.port_high) {
    return absl::InvalidArgumentError(
        "no ephemeral port range read from /proc/sys/net/ipv4/ip_local_port_range");
  }
  if (!tcp) return absl::InvalidArgumentError("no listing of /proc/net/tcp");
  return probe;
}

absl::StatusOr<std::vector<int>> ChooseFreePorts(const HostProbe& probe, size_t count,
                                                 uint64_t seed) {
  const std::set<int> used(probe.ports_in_use.begin(), probe.ports_in_use.end());
  const int span = probe.port_high - probe.port_low + 1;
  std::vector<int> ports;
  for (int i = 0; i < span && ports.size() < count; ++i) {
    const int port = probe.port_low + static_cast<int>((seed + static_cast<uint64_t>(i)) % span);
    if (!used.contains(port)) ports.push_back(port);
  }
  if (ports.size() < count) {
    return absl::ResourceExhaustedError(
        absl::StrCat("the host has ", ports.size(), " free ports in its ephemeral range ",
                     probe.port_low, "-", probe.port_high, "; the job needs ", count));
  }
  return ports;
}

std::string CachedExecutable(absl::string_view hex, absl::string_view name) {
  return absl::StrCat(kRemoteCacheDir, "/sha256/", hex, "/", name);
}

std::string CacheInsertCommand(absl::string_view hex, absl::string_view name) {
  const std::string dir = absl::StrCat("\"$HOME\"/", kRemoteCacheDir, "/sha256/", hex);
  const std::string tmp = absl::StrCat(dir, "/.tmp.$$");
  return absl::StrCat("umask 022 && mkdir -p ", dir, " && cat >", tmp, " && chmod 755 ", tmp,
                      " && mv -f ", tmp, " ", dir, "/", ShellQuote(name));
}

std::string SetupScript(absl::string_view job_dir, absl::Duration grace,
                        const std::map<std::string, std::map<std::string, std::string>>& envs,
                        const std::map<std::string, std::string>& files) {
  const int64_t seconds =
      std::max<int64_t>(1, absl::ToInt64Seconds(absl::Ceil(grace, absl::Seconds(1))));
  std::string wrapper = kWrapper;
  wrapper.replace(wrapper.find("@GRACE@"), 7, std::to_string(seconds));
  std::string script = absl::StrCat("set -e\numask 077\nmkdir -p ", ShellQuote(job_dir), "\n",
                                    WriteFile(absl::StrCat(job_dir, "/run.sh"), wrapper));
  for (const auto& [replica, env] : envs) {
    std::string exports;
    for (const auto& [name, value] : env) {
      if (!ValidEnvName(name)) continue;  // sh could not export it
      absl::StrAppend(&exports, "export ", name, "=", ShellQuote(value), "\n");
    }
    absl::StrAppend(&script, WriteFile(absl::StrCat(job_dir, "/", replica, ".env"), exports));
  }
  for (const auto& [name, content] : files) {
    const bool newline = !content.empty() && content.back() == '\n';
    absl::StrAppend(&script, WriteFile(absl::StrCat(job_dir, "/", name),
                                       newline ? content : absl::StrCat(content, "\n")));
  }
  return script;
}

std::string TrainpkgVersionCommand(absl::string_view program) {
  return absl::StrCat("p=$(command -v ", ShellQuote(program),
                      ") || { echo missing; exit 0; }; echo \"path $p\"; \"$p\" version 2>&1; "
                      "exit 0");
}

RemoteTrainpkg ParseTrainpkgVersion(absl::string_view output) {
  RemoteTrainpkg found;
  for (absl::string_view line : absl::StrSplit(output, '\n')) {
    if (found.path.empty()) {
      if (!absl::ConsumePrefix(&line, "path ")) continue;
      found.path = std::string(line);
    } else if (found.version.empty() && !absl::StripAsciiWhitespace(line).empty()) {
      found.version = std::string(absl::StripAsciiWhitespace(line));
    }
  }
  return found;
}

std::string ReplicaCommand(absl::string_view job_dir, absl::string_view replica,
                           absl::string_view cwd, const std::vector<std::string>& argv) {
  std::string command =
      absl::StrCat("exec sh ", ShellQuote(absl::StrCat(job_dir, "/run.sh")), " ",
                   ShellQuote(absl::StrCat(job_dir, "/", replica, ".env")), " ", ShellQuote(cwd));
  for (const std::string& arg : argv) absl::StrAppend(&command, " ", ShellQuote(arg));
  return command;
}

std::string SignalCommand(absl::string_view job_dir, absl::string_view replica,
                          absl::string_view signal) {
  return absl::StrCat("p=$(cat ", ShellQuote(absl::StrCat(job_dir, "/", replica, ".pgid")),
                      " 2>/dev/null) && kill -", signal, " \"-$p\" 2>/dev/null; exit 0");
}

std::string CleanupCommand(absl::string_view job_dir) {
  return absl::StrCat("rm -rf ", ShellQuote(job_dir));
}

}  // namespace trainpkg::sdk::ssh::internal
