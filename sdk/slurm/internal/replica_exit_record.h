// How a replica of a Slurm job ended, as its task launcher records it in
// <job dir>/slurm/exits/<replica> ({"code":3,"signal":0,"time":"..."}), so
// the backend can name the replica that failed first.
#ifndef TRAINPKG_SDK_SLURM_INTERNAL_REPLICA_EXIT_RECORD_H_
#define TRAINPKG_SDK_SLURM_INTERNAL_REPLICA_EXIT_RECORD_H_

#include <filesystem>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "sdk/process_launcher.h"

namespace trainpkg::sdk::slurm::internal {

struct ReplicaExitRecord {
  std::string replica;  // "workerpool1-0" (the file name)
  ExitStatus status;
  absl::Time time;  // when the launcher saw the replica end
};

// Writes the record atomically; errors name the file.
absl::Status WriteReplicaExitRecord(const std::filesystem::path& exits_dir,
                                    const ReplicaExitRecord& record);

// Every record in `exits_dir` (none when it does not exist), oldest first.
// Unreadable files are skipped.
std::vector<ReplicaExitRecord> ReadReplicaExitRecords(const std::filesystem::path& exits_dir);

}  // namespace trainpkg::sdk::slurm::internal

#endif  // TRAINPKG_SDK_SLURM_INTERNAL_REPLICA_EXIT_RECORD_H_
