// The seccomp filter of every trainpkg container (job replicas and
// Dockerfile RUN), as the runtime spec's `linux.seccomp` object: an
// allowlist with the behaviour of Docker's default profile for a container
// holding Docker's default capabilities (no CAP_SYS_ADMIN, CAP_SYS_PTRACE,
// ...): every syscall not listed fails with EPERM; among those left out are
// mount, umount2, pivot_root, unshare, setns, bpf, perf_event_open,
// keyctl/add_key/request_key, kexec_*, *_module, reboot, swapon/swapoff,
// acct, quotactl, settimeofday/clock_settime, open_by_handle_at,
// userfaultfd, io_uring_*, lookup_dcookie and the NUMA policy calls.
// clone is allowed without namespace flags, clone3 fails with ENOSYS (so
// libcs fall back to clone, whose flags can be checked), personality only
// for the values Docker allows, socket for every family but AF_VSOCK.
// Syscall names unknown to the runtime's libseccomp are ignored by runc, so
// one list serves x86-64 (with its 32-bit ABIs) and arm64.
//
// With `forbid_set_id_modes` (containers that write into host directories:
// job replicas) chmod, fchmod, fchmodat(2), creat, open, openat, mknod and
// mknodat also fail with EPERM when their mode carries S_ISUID or S_ISGID,
// so no set-id file can be planted on the host.
#ifndef TRAINPKG_PACKAGER_RUN_SECCOMP_PROFILE_H_
#define TRAINPKG_PACKAGER_RUN_SECCOMP_PROFILE_H_

#include "nlohmann/json.hpp"

namespace trainpkg::packager::run {

struct SeccompOptions {
  bool forbid_set_id_modes = false;
};

nlohmann::json SeccompProfile(const SeccompOptions& options);

}  // namespace trainpkg::packager::run

#endif  // TRAINPKG_PACKAGER_RUN_SECCOMP_PROFILE_H_
