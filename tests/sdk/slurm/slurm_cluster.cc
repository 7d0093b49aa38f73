#include "tests/sdk/slurm/slurm_cluster.h"

#include <fcntl.h>
#include <pwd.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <functional>
#include <optional>
#include <random>

#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "base/file_util.h"
#include "base/status_macros.h"
#include "base/subprocess.h"
#include "fmt/format.h"
#include "sdk/local/internal/port_reservation.h"
#include "tests/registry/run_tool.h"

extern char** environ;

namespace trainpkg::sdk::testing {
namespace {

constexpr char kSystemPath[] = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin";
constexpr const char* kBinaries[] = {"munged", "slurmctld", "slurmd",  "sbatch",
                                     "srun",   "scontrol",  "scancel", "sinfo"};

std::string UserName() {
  const passwd* pw = ::getpwuid(::geteuid());
  return pw != nullptr ? pw->pw_name : "root";
}

std::string HostName() {
  char name[256] = {};
  ::gethostname(name, sizeof(name) - 1);
  return name;
}

// slurm.conf for two nodes on this host (reference/peers.md §5).
std::string SlurmConf(const std::filesystem::path& dir, int ctld_port, int n1_port, int n2_port,
                      const SlurmClusterOptions& options) {
  const std::string d = dir.string();
  std::string nodes;
  for (auto [name, port] : {std::pair{"n1", n1_port}, std::pair{"n2", n2_port}}) {
    nodes += fmt::format(
        "NodeName={} NodeHostname={} NodeAddr=127.0.0.1 Port={} CPUs={} RealMemory={} "
        "State=UNKNOWN\n",
        name, HostName(), port, options.cpus_per_node, options.memory_mib_per_node);
  }
  return fmt::format(
      "ClusterName=trainpkgtest\n"
      "SlurmctldHost=localhost(127.0.0.1)\n"
      "SlurmctldPort={ctld}\n"
      "AuthType=auth/munge\n"
      "CredType=cred/munge\n"
      "AuthInfo=socket={d}/munge.sock\n"
      "SlurmUser={user}\n"
      "SlurmdUser={user}\n"
      "StateSaveLocation={d}/state\n"
      "SlurmdSpoolDir={d}/spool/%n\n"
      "SlurmctldPidFile={d}/slurmctld.pid\n"
      "SlurmdPidFile={d}/slurmd-%n.pid\n"
      "SlurmctldLogFile={d}/log/slurmctld.log\n"
      "SlurmdLogFile={d}/log/slurmd-%n.log\n"
      "ProctrackType=proctrack/linuxproc\n"
      "TaskPlugin=task/none\n"
      "JobAcctGatherType=jobacct_gather/none\n"
      "AccountingStorageType=accounting_storage/none\n"
      "JobCompType=jobcomp/none\n"
      "MpiDefault=none\n"
      "SwitchType=switch/none\n"
      "SchedulerType=sched/backfill\n"
      "SelectType=select/cons_tres\n"
      "SelectTypeParameters=CR_Core\n"
      "SlurmdParameters=config_overrides\n"
      "ReturnToService=2\n"
      "SlurmctldTimeout=30\n"
      "SlurmdTimeout=30\n"
      "KillWait=5\n"
      "{scheduler}"
      "{nodes}"
      "PartitionName=debug Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP\n",
      fmt::arg("ctld", ctld_port), fmt::arg("d", d), fmt::arg("user", UserName()),
      fmt::arg("nodes", nodes),
      fmt::arg("scheduler", options.scheduler_parameters.empty()
                                ? std::string()
                                : "SchedulerParameters=" + options.scheduler_parameters + "\n"));
}

bool WaitUntil(const std::function<bool()>& condition, absl::Duration timeout) {
  const absl::Time deadline = absl::Now() + timeout;
  while (!condition()) {
    if (absl::Now() > deadline) return false;
    absl::SleepFor(absl::Milliseconds(50));
  }
  return true;
}

}  // namespace

SlurmCluster::~SlurmCluster() { Stop(); }

std::string SlurmCluster::MissingBinaries() {
  std::vector<std::string> missing;
  for (const char* binary : kBinaries) {
    if (!base::FindInPath(binary, kSystemPath)) missing.push_back(binary);
  }
  return absl::StrJoin(missing, ", ");
}

absl::StatusOr<pid_t> SlurmCluster::Spawn(const std::string& name,
                                          const std::vector<std::string>& argv) {
  std::optional<std::filesystem::path> exe = base::FindInPath(argv[0], kSystemPath);
  if (!exe) return absl::NotFoundError(argv[0] + " is not installed");
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string out = (dir_ / "log" / (name + ".out")).string();
  posix_spawn_file_actions_addopen(&actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, 1, 2);
  std::vector<std::string> args = argv;
  args[0] = exe->string();
  std::vector<char*> raw;
  for (std::string& arg : args) raw.push_back(arg.data());
  raw.push_back(nullptr);
  pid_t pid = -1;
  int rc = ::posix_spawn(&pid, args[0].c_str(), &actions, nullptr, raw.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return base::ErrnoToStatus(rc, "starting " + name);
  pids_.push_back(pid);
  return pid;
}

absl::Status SlurmCluster::Start(const SlurmClusterOptions& options) {
  dir_ = std::filesystem::temp_directory_path() /
         fmt::format("trainpkg-slurm-{}-{}", ::getpid(), std::random_device{}() % 1000000);
  for (const char* sub : {"state", "spool", "log"}) std::filesystem::create_directories(dir_ / sub);

  // munged with its own key and socket.
  std::string key(1024, '\0');
  std::random_device random;
  for (char& c : key) c = static_cast<char>(random());
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(dir_ / "munge.key", key));
  ::chmod((dir_ / "munge.key").c_str(), 0600);
  const std::string d = dir_.string();
  TP_RETURN_IF_ERROR(
      Spawn("munged", {"munged", "--foreground", "--force", "--socket=" + d + "/munge.sock",
                       "--key-file=" + d + "/munge.key", "--log-file=" + d + "/log/munged.log",
                       "--pid-file=" + d + "/munged.pid", "--seed-file=" + d + "/munged.seed"})
          .status());
  if (!WaitUntil([&] { return std::filesystem::exists(dir_ / "munge.sock"); }, absl::Seconds(10))) {
    return absl::DeadlineExceededError("munged did not create its socket:\n" + Logs());
  }

  TP_ASSIGN_OR_RETURN(local::internal::PortReservation ports, local::internal::PortReservation::Reserve(3));
  const int ctld = ports.ports()[0], n1 = ports.ports()[1], n2 = ports.ports()[2];
  ports.Release();
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(conf(), SlurmConf(dir_, ctld, n1, n2, options)));
  ::setenv("SLURM_CONF", conf().c_str(), 1);
  TP_RETURN_IF_ERROR(Spawn("slurmctld", {"slurmctld", "-D", "-f", conf().string()}).status());
  for (const char* node : {"n1", "n2"}) {
    TP_RETURN_IF_ERROR(
        Spawn(std::string("slurmd-") + node, {"slurmd", "-D", "-f", conf().string(), "-N", node})
            .status());
  }
  std::string last;
  bool idle = WaitUntil(
      [&] {
        absl::StatusOr<std::string> nodes = Run({"sinfo", "-h", "-N", "-o", "%N %t"});
        last = nodes.ok() ? *nodes : std::string(nodes.status().message());
        return nodes.ok() && absl::StrContains(*nodes, "n1 idle") &&
               absl::StrContains(*nodes, "n2 idle");
      },
      absl::Seconds(30));
  if (!idle) {
    return absl::DeadlineExceededError(
        absl::StrCat("the Slurm nodes did not become idle (sinfo: ", last, "):\n", Logs()));
  }
  return absl::OkStatus();
}

void SlurmCluster::Stop() {
  if (!pids_.empty()) {
    // Jobs first, so no slurmstepd is left waiting for a slurmd that is gone.
    (void)Run({"scancel", "--user=" + UserName()});
    WaitUntil(
        [&] {
          absl::StatusOr<std::string> queue = Run({"squeue", "-h"});
          return !queue.ok() || queue->empty();
        },
        absl::Seconds(15));
  }
  for (auto it = pids_.rbegin(); it != pids_.rend(); ++it) {
    const pid_t pid = *it;
    ::kill(pid, SIGTERM);
    const absl::Time deadline = absl::Now() + absl::Seconds(5);
    int status = 0;
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (absl::Now() > deadline) {
        ::kill(pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      absl::SleepFor(absl::Milliseconds(10));
    }
  }
  pids_.clear();
  KillLeftoverStepDaemons();
  if (!dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
    dir_.clear();
  }
}

void SlurmCluster::KillLeftoverStepDaemons() const {
  if (dir_.empty()) return;
  const std::string ours = "SLURM_CONF=" + conf().string();
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator("/proc", ec)) {
    int pid = 0;
    if (!absl::SimpleAtoi(entry.path().filename().string(), &pid)) continue;
    absl::StatusOr<std::string> comm = base::ReadFile(entry.path() / "comm");
    if (!comm.ok() || !absl::StartsWith(*comm, "slurmstepd")) continue;
    absl::StatusOr<std::string> environ_text = base::ReadFile(entry.path() / "environ");
    if (!environ_text.ok()) continue;
    for (absl::string_view variable : absl::StrSplit(*environ_text, '\0')) {
      if (variable == ours) ::kill(pid, SIGKILL);
    }
  }
}

absl::StatusOr<std::string> SlurmCluster::Run(const std::vector<std::string>& argv) const {
  return registry::testing::RunTool(argv);
}

std::string SlurmCluster::Logs() const {
  std::string logs;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(dir_ / "log", ec)) {
    absl::StatusOr<std::string> text = base::ReadFile(entry.path());
    if (!text.ok()) continue;
    std::vector<absl::string_view> lines = absl::StrSplit(*text, '\n');
    if (lines.size() > 15) lines.erase(lines.begin(), lines.end() - 15);
    absl::StrAppend(&logs, "--- ", entry.path().filename().string(), "\n",
                    absl::StrJoin(lines, "\n"), "\n");
  }
  return logs;
}

}  // namespace trainpkg::sdk::testing
