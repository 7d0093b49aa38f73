// The engine that runs one job on a backend (LocalProcessBackend,
// SlurmBackend, VertexBackend, K8sBackend), driven by that backend's
// BackendJob (sdk/backend_driver.h), which adds the job's result, current
// state and identity. A local or Slurm engine reports progress through the
// JobRecorder it was given.
#ifndef TRAINPKG_SDK_INTERNAL_JOB_BACKEND_H_
#define TRAINPKG_SDK_INTERNAL_JOB_BACKEND_H_

#include "absl/status/status.h"

namespace trainpkg::sdk::internal {

class JobBackend {
 public:
  // Destroying an unfinished job cancels it and waits until it is terminal.
  virtual ~JobBackend() = default;
  // Starts running the already recorded (QUEUED) job in the background.
  virtual absl::Status Start() = 0;
  // Blocks until the job is terminal. Thread-safe.
  virtual void Wait() = 0;
  // Stops the job; `immediately` skips the grace period. Thread-safe,
  // idempotent, no effect on a terminal job.
  virtual void Cancel(bool immediately) = 0;
};

}  // namespace trainpkg::sdk::internal

#endif  // TRAINPKG_SDK_INTERNAL_JOB_BACKEND_H_
