// `trainpkg ssh-replica MANIFEST`: what the SSH backend runs on a host for
// each replica whose pool runs a container image (sdk/ssh,
// docs/adr/2026-11-28-ssh-backend.md). Hidden from help: users never run it.
//
// Reads the replica's task manifest (sdk/internal/task_manifest.h: the job,
// the replica's name and cluster env) and deletes it (it holds the job
// secret), then runs the replica as a runc container through this host's
// trainpkg home (sdk/local/container_replica_runner.h), its output on
// stdout. SIGTERM and SIGINT go to the container; when this process is
// killed, its host resource ledger deletes the container. Exits with the
// replica's status (128+N for signal N); 1 with a message on stderr when the
// container could not be started.
#ifndef TRAINPKG_SDK_CLI_SSH_REPLICA_COMMAND_H_
#define TRAINPKG_SDK_CLI_SSH_REPLICA_COMMAND_H_

#include <ostream>
#include <string>

#include "CLI/CLI.hpp"

namespace trainpkg::cli {

inline constexpr char kSshReplicaCommand[] = "ssh-replica";

// Adds the hidden command; `manifest` receives its argument.
CLI::App* AddSshReplicaCommand(CLI::App& app, std::string& manifest);

int SshReplicaCommand(const std::string& manifest, std::ostream& err);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_SSH_REPLICA_COMMAND_H_
