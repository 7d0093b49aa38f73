#include "packager/run/seccomp_profile.h"

#include <errno.h>

#include <string>
#include <vector>

namespace trainpkg::packager::run {
namespace {

using Json = nlohmann::json;

constexpr uint64_t kSetIdBits = 06000;  // S_ISUID | S_ISGID
// CLONE_NEWNS | NEWCGROUP | NEWUTS | NEWIPC | NEWUSER | NEWPID | NEWNET.
constexpr uint64_t kNamespaceFlags = 0x7E020000;
constexpr uint64_t kAfVsock = 40;

// Calls a process may always make: files, memory, signals, time (read),
// processes, threads, IPC, sockets and credentials within the capabilities
// the container keeps. Grouped by purpose, each group in name order.
const std::vector<std::string>& AlwaysAllowed() {
  // clang-format off
  static const std::vector<std::string> names = {
      // Files and directories.
      "access", "chdir", "chown", "chown32", "close", "close_range", "copy_file_range", "dup",
      "dup2", "dup3", "faccessat", "faccessat2", "fadvise64", "fadvise64_64", "fallocate", "fchdir",
      "fchown", "fchown32", "fchownat", "fcntl", "fcntl64", "fanotify_mark", "fdatasync",
      "fgetxattr", "flistxattr", "flock", "fremovexattr", "fsetxattr", "fstat", "fstat64",
      "fstatat64", "fstatfs", "fstatfs64", "fsync", "ftruncate", "ftruncate64", "futimesat",
      "getcwd", "getdents", "getdents64", "getxattr", "inotify_add_watch", "inotify_init",
      "inotify_init1", "inotify_rm_watch", "lchown", "lchown32", "lgetxattr", "link", "linkat",
      "listxattr", "llistxattr", "_llseek", "lremovexattr", "lseek", "lsetxattr", "lstat",
      "lstat64", "mkdir", "mkdirat", "name_to_handle_at", "newfstatat", "pread64", "preadv",
      "preadv2", "pwrite64", "pwritev", "pwritev2", "read", "readahead", "readlink", "readlinkat",
      "readv", "removexattr", "rename", "renameat", "renameat2", "rmdir", "sendfile", "sendfile64",
      "setxattr", "splice", "stat", "stat64", "statfs", "statfs64", "statx", "symlink", "symlinkat",
      "sync", "sync_file_range", "syncfs", "tee", "truncate", "truncate64", "umask", "unlink",
      "unlinkat", "utime", "utimensat", "utimensat_time64", "utimes", "vmsplice", "write", "writev",
      // Event loops, pipes, asynchronous I/O.
      "epoll_create", "epoll_create1", "epoll_ctl", "epoll_ctl_old", "epoll_pwait", "epoll_pwait2",
      "epoll_wait", "epoll_wait_old", "eventfd", "eventfd2", "io_cancel", "io_destroy",
      "io_getevents", "io_pgetevents", "io_pgetevents_time64", "io_setup", "io_submit", "ioctl",
      "pipe", "pipe2", "poll", "ppoll", "ppoll_time64", "pselect6", "pselect6_time64", "select",
      "_newselect", "signalfd", "signalfd4", "timerfd_create", "timerfd_gettime",
      "timerfd_gettime64", "timerfd_settime", "timerfd_settime64",
      // Memory.
      "brk", "madvise", "membarrier", "memfd_create", "memfd_secret", "mincore", "mlock", "mlock2",
      "mlockall", "mmap", "mmap2", "mprotect", "mremap", "msync", "munlock", "munlockall", "munmap",
      "pkey_alloc", "pkey_free", "pkey_mprotect", "remap_file_pages",
      // Processes, threads, scheduling, limits.
      "capget", "capset", "execve", "execveat", "exit", "exit_group", "fork", "futex",
      "futex_requeue", "futex_time64", "futex_wait", "futex_waitv", "futex_wake", "getcpu",
      "getpgid", "getpgrp", "getpid", "getppid", "getpriority", "getrandom", "getrlimit",
      "get_robust_list", "getrusage", "getsid", "get_thread_area", "gettid", "ioprio_get",
      "ioprio_set", "kcmp", "landlock_add_rule", "landlock_create_ruleset",
      "landlock_restrict_self", "pidfd_getfd", "pidfd_open", "pidfd_send_signal", "prctl",
      "prlimit64", "process_madvise", "process_mrelease", "process_vm_readv", "process_vm_writev",
      "ptrace", "restart_syscall", "rseq", "sched_getaffinity", "sched_getattr", "sched_getparam",
      "sched_get_priority_max", "sched_get_priority_min", "sched_getscheduler",
      "sched_rr_get_interval", "sched_rr_get_interval_time64", "sched_setaffinity", "sched_setattr",
      "sched_setparam", "sched_setscheduler", "sched_yield", "seccomp", "setpgid", "setpriority",
      "setrlimit", "set_robust_list", "setsid", "set_thread_area", "set_tid_address", "sysinfo",
      "ugetrlimit", "uname", "vfork", "wait4", "waitid", "waitpid",
      // Signals and timers.
      "alarm", "getitimer", "kill", "pause", "rt_sigaction", "rt_sigpending", "rt_sigprocmask",
      "rt_sigqueueinfo", "rt_sigreturn", "rt_sigsuspend", "rt_sigtimedwait",
      "rt_sigtimedwait_time64", "rt_tgsigqueueinfo", "setitimer", "sigaction", "sigaltstack",
      "signal", "sigpending", "sigprocmask", "sigreturn", "sigsuspend", "tgkill", "tkill",
      "timer_create", "timer_delete", "timer_getoverrun", "timer_gettime", "timer_gettime64",
      "timer_settime", "timer_settime64",
      // Clocks (reading; adjtimex and clock_adjtime only change the clock with
      // CAP_SYS_TIME, which the container lacks).
      "adjtimex", "clock_adjtime", "clock_adjtime64", "clock_getres", "clock_getres_time64",
      "clock_gettime", "clock_gettime64", "clock_nanosleep", "clock_nanosleep_time64",
      "gettimeofday", "nanosleep", "time", "times",
      // System V and POSIX IPC (in the container's own IPC namespace).
      "ipc", "mq_getsetattr", "mq_notify", "mq_open", "mq_timedreceive", "mq_timedreceive_time64",
      "mq_timedsend", "mq_timedsend_time64", "mq_unlink", "msgctl", "msgget", "msgrcv", "msgsnd",
      "semctl", "semget", "semop", "semtimedop", "semtimedop_time64", "shmat", "shmctl", "shmdt",
      "shmget",
      // Sockets (socket itself below).
      "accept", "accept4", "bind", "connect", "getpeername", "getsockname", "getsockopt", "listen",
      "recv", "recvfrom", "recvmmsg", "recvmmsg_time64", "recvmsg", "send", "sendmmsg", "sendmsg",
      "sendto", "setsockopt", "shutdown", "socketcall", "socketpair",
      // Credentials (bounded by CAP_SETUID / CAP_SETGID).
      "getegid", "getegid32", "geteuid", "geteuid32", "getgid", "getgid32", "getgroups",
      "getgroups32", "getresgid", "getresgid32", "getresuid", "getresuid32", "getuid", "getuid32",
      "setfsgid", "setfsgid32", "setfsuid", "setfsuid32", "setgid", "setgid32", "setgroups",
      "setgroups32", "setregid", "setregid32", "setresgid", "setresgid32", "setresuid",
      "setresuid32", "setreuid", "setreuid32", "setuid", "setuid32",
      // CAP_SYS_CHROOT is one of the container's capabilities.
      "chroot",
#if defined(__x86_64__) || defined(__i386__)
      "arch_prctl", "modify_ldt",
#elif defined(__aarch64__)
      "arm_fadvise64_64", "arm_sync_file_range", "breakpoint", "cacheflush", "set_tls",
      "sync_file_range2",
#endif
  };
  // clang-format on
  return names;
}

// (syscall, index of its mode argument): calls that set a file's mode.
struct ModeCall {
  const char* name;
  unsigned index;
};
constexpr ModeCall kModeCalls[] = {
    {"chmod", 1}, {"fchmod", 1}, {"fchmodat", 2}, {"fchmodat2", 2}, {"creat", 1},
    {"open", 2},  {"openat", 3}, {"mknod", 1},    {"mknodat", 2},
};

Json Arg(unsigned index, uint64_t value, uint64_t value_two, const char* op) {
  return Json{{"index", index}, {"value", value}, {"valueTwo", value_two}, {"op", op}};
}

Json Allow(std::vector<std::string> names, Json args = Json::array()) {
  Json rule{{"names", std::move(names)}, {"action", "SCMP_ACT_ALLOW"}};
  if (!args.empty()) rule["args"] = std::move(args);
  return rule;
}

Json Architectures() {
#if defined(__x86_64__) || defined(__i386__)
  return Json::array({"SCMP_ARCH_X86_64", "SCMP_ARCH_X86", "SCMP_ARCH_X32"});
#elif defined(__aarch64__)
  return Json::array({"SCMP_ARCH_AARCH64", "SCMP_ARCH_ARM"});
#else
  return Json::array();  // the native architecture only
#endif
}

}  // namespace

Json SeccompProfile(const SeccompOptions& options) {
  Json rules = Json::array();
  rules.push_back(Allow(AlwaysAllowed()));
  for (const ModeCall& call : kModeCalls) {
    if (options.forbid_set_id_modes) {
      rules.push_back(
          Allow({call.name}, Json::array({Arg(call.index, kSetIdBits, 0, "SCMP_CMP_MASKED_EQ")})));
    } else {
      rules.push_back(Allow({call.name}));
    }
  }
  // openat2 carries its mode in a struct seccomp cannot read: ENOSYS makes
  // callers fall back to openat when set-id modes are refused.
  if (options.forbid_set_id_modes) {
    rules.push_back(
        Json{{"names", {"openat2"}}, {"action", "SCMP_ACT_ERRNO"}, {"errnoRet", ENOSYS}});
  } else {
    rules.push_back(Allow({"openat2"}));
  }
  rules.push_back(
      Allow({"clone"}, Json::array({Arg(0, kNamespaceFlags, 0, "SCMP_CMP_MASKED_EQ")})));
  for (uint64_t persona : {0x0ULL, 0x8ULL, 0x20000ULL, 0x20008ULL, 0xffffffffULL}) {
    rules.push_back(Allow({"personality"}, Json::array({Arg(0, persona, 0, "SCMP_CMP_EQ")})));
  }
  rules.push_back(Allow({"socket"}, Json::array({Arg(0, kAfVsock, 0, "SCMP_CMP_NE")})));
  rules.push_back(Json{{"names", {"clone3"}}, {"action", "SCMP_ACT_ERRNO"}, {"errnoRet", ENOSYS}});
  return Json{{"defaultAction", "SCMP_ACT_ERRNO"},
              {"defaultErrnoRet", EPERM},
              {"architectures", Architectures()},
              {"syscalls", std::move(rules)}};
}

}  // namespace trainpkg::packager::run
