// Where the SSH backend of sdk::CustomJob runs a job and how it reaches the
// hosts (docs/adr/2026-11-28-ssh-backend.md).
//
// Every replica runs on one of `hosts`, started through the system's OpenSSH
// client (`ssh`, `scp`) with the user's ~/.ssh/config and agent. What a host
// needs: a POSIX sh, setsid (util-linux), Linux's /proc/net/tcp, and sshd
// letting this user in without a password prompt (BatchMode); for pools
// with a container image, also runc and a trainpkg of this version
// (remote_trainpkg). The base
// output directory must be a path every host sees (a shared filesystem),
// as the job's model and checkpoints are written there.
#ifndef TRAINPKG_SDK_SSH_SSH_BACKEND_OPTIONS_H_
#define TRAINPKG_SDK_SSH_SSH_BACKEND_OPTIONS_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/time/time.h"

namespace trainpkg::sdk::ssh {

// One host of the job: the name given to ssh (a host name, an address, a
// Host alias of ssh_config, or user@host) and how many replicas it takes.
struct SshHost {
  std::string name;
  int slots = 1;
  bool operator==(const SshHost&) const = default;
};

struct SshBackendOptions {
  // The hosts, in placement order: replicas fill the first host's slots,
  // then the next host's, pools in order (the chief first).
  std::vector<SshHost> hosts;
  // true: each "local:" executable is copied to a content-addressed cache on
  // each host ($HOME/.cache/trainpkg/ssh/sha256/<digest>/<name>), which a
  // later job reuses without copying; false (`--no-copy`): the executables
  // are run at the same path as here, as on a shared filesystem, and the
  // replicas start in this process's current directory.
  bool copy_executables = true;
  // The ssh and scp programs (looked up on PATH).
  std::string ssh_program = "ssh";
  std::string scp_program = "scp";
  // An ssh_config file instead of ~/.ssh/config (ssh -F); "": the user's.
  std::filesystem::path ssh_config;
  // The trainpkg program on the hosts that run container-image replicas: a
  // name looked up on the login's PATH, or a path on the host. It must be
  // the same version as this trainpkg (`trainpkg version`, checked on each
  // such host before any replica starts); it pulls the image into that
  // host's trainpkg home ($TRAINPKG_HOME, else ~/.trainpkg) or reads an
  // "oci:DIR" layout there, and runs the replica with the host's runc, as
  // root (runc's needs), on the host's network.
  std::string remote_trainpkg = "trainpkg";
  // ssh's ConnectTimeout: how long reaching a host may take before the job
  // fails naming it.
  absl::Duration connect_timeout = absl::Seconds(10);
};

}  // namespace trainpkg::sdk::ssh

#endif  // TRAINPKG_SDK_SSH_SSH_BACKEND_OPTIONS_H_
