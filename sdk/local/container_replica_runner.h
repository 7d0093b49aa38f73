// Runs one replica of a job as a runc container on this machine, for a
// backend that placed it here and made its cluster env elsewhere: what
// `trainpkg ssh-replica` does on an SSH backend's host
// (docs/adr/2026-11-28-ssh-backend.md).
//
// The image is found in this machine's trainpkg home: a registry reference
// in its image store, pulled into it when absent; "oci:DIR[:TAG]" read in
// place. Its rootfs is unpacked once into the home's rootfs cache. The
// container is the local backend's (same args, env, user, read-only rootfs,
// seccomp and capabilities), except that it shares the host's network (the
// cluster env's ports were chosen free on this host), its /etc/hosts names
// localhost and the replica, and its /etc/resolv.conf is the host's. The
// base output directory, a local path, is bind-mounted at the same path
// (created when missing), as the local backend does.
//
// Lifecycle: runc leads the returned Process's group, which holds the
// container's init, so SignalGroup reaches the trainer; once runc has
// exited, Wait()/TryWait() delete the container and its bundle. The
// container, its bundle and its /etc/hosts are recorded in this process's
// host resource ledger (packager/run/host_resource_ledger.h): if this
// process dies first, even by SIGKILL, its watchdog deletes them.
#ifndef TRAINPKG_SDK_LOCAL_CONTAINER_REPLICA_RUNNER_H_
#define TRAINPKG_SDK_LOCAL_CONTAINER_REPLICA_RUNNER_H_

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::local {

struct ContainerReplicaRun {
  std::filesystem::path home;  // this machine's trainpkg home
  std::string job_id;
  jobspec::CustomJobSpec spec;
  std::string replica;                             // "workerpool1-0"
  std::map<std::string, std::string> cluster_env;  // CLUSTER_SPEC, TF_CONFIG, AIP_*, ...
  // This process's environment: runc's PATH, registry credentials.
  std::map<std::string, std::string> environment;
};

// Reads the replica's task manifest (sdk/internal/task_manifest.h, naming
// one replica and carrying its cluster env), which the SSH backend wrote,
// and deletes it (it holds the job secret): job_id, spec, replica and
// cluster_env of the result are set. The file's errors; InvalidArgument,
// naming the file, for a manifest without a replica.
absl::StatusOr<ContainerReplicaRun> ReadContainerReplicaManifest(
    const std::filesystem::path& manifest);

// Prepares and starts the container of `run.replica` with `launcher` (whose
// thread must outlive it). InvalidArgument when the spec has no such
// replica or it is not a container image; the image's errors naming its
// imageUri field (NotFound, a registry's); runc's when it cannot start.
absl::StatusOr<std::unique_ptr<Process>> StartContainerReplica(
    const ContainerReplicaRun& run, std::shared_ptr<ProcessLauncher> launcher);

}  // namespace trainpkg::sdk::local

#endif  // TRAINPKG_SDK_LOCAL_CONTAINER_REPLICA_RUNNER_H_
