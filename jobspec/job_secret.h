// The per-job shared secret that authenticates the RPCs between a job's
// replicas (coordination, parameter servers, workers). The backend that
// launches a job makes one secret per job (NewJobSecret) and puts it in
// every replica's environment as TRAINPKG_JOB_SECRET (MakeClusterEnv does
// for the local, Slurm and Kubernetes backends; the Vertex backend adds it
// to each pool's container env). The trainer runtime reads it back, sends
// it with every call and refuses calls without it.
//
// A trainer started by hand (TF_CONFIG, torchrun, srun) without it serves
// loopback addresses only: set the same value, e.g. `openssl rand -hex 32`,
// on every replica to listen beyond.
#ifndef TRAINPKG_JOBSPEC_JOB_SECRET_H_
#define TRAINPKG_JOBSPEC_JOB_SECRET_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobspec/custom_job.h"

namespace trainpkg::jobspec {

inline constexpr char kJobSecretEnv[] = "TRAINPKG_JOB_SECRET";
// Bounds on a secret's length: long enough not to be guessed, short enough
// for a gRPC metadata value.
inline constexpr size_t kMinJobSecretLength = 32;
inline constexpr size_t kMaxJobSecretLength = 1024;

// 32 bytes from the kernel's random source (getrandom(2)) as 64 lowercase
// hex digits. Internal when the random source fails.
absl::StatusOr<std::string> NewJobSecret();

// Sets TRAINPKG_JOB_SECRET to `secret` in the env of every worker pool's
// container (or Python package) spec that does not set it already: how a
// job reaches replicas whose cluster env someone else writes (Vertex).
void AddJobSecretToPools(CustomJobSpec& spec, const std::string& secret);

// OK for kMinJobSecretLength..kMaxJobSecretLength printable ASCII
// characters other than space; InvalidArgument naming TRAINPKG_JOB_SECRET
// and what is wrong otherwise (never echoing the value).
absl::Status ValidateJobSecret(std::string_view secret);

}  // namespace trainpkg::jobspec

#endif  // TRAINPKG_JOBSPEC_JOB_SECRET_H_
