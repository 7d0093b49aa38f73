#include "sdk/slurm/internal/replica_exit_record.h"

#include <algorithm>
#include <system_error>

#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/private_file.h"
#include "jobspec/custom_job_json.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk::slurm::internal {

absl::Status WriteReplicaExitRecord(const std::filesystem::path& exits_dir,
                                    const ReplicaExitRecord& record) {
  nlohmann::json json = {{"code", record.status.code},
                         {"signal", record.status.signal},
                         {"time", jobspec::FormatTimestamp(record.time)}};
  return base::WriteFileAtomicPrivate(exits_dir / record.replica, json.dump());
}

std::vector<ReplicaExitRecord> ReadReplicaExitRecords(const std::filesystem::path& exits_dir) {
  std::vector<ReplicaExitRecord> records;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(exits_dir, ec)) {
    // Skips WriteFileAtomic's "<name>.tmp.<pid>.<n>" files.
    if (entry.path().filename().string().find('.') != std::string::npos) continue;
    absl::StatusOr<std::string> text = base::ReadFile(entry.path());
    if (!text.ok()) continue;
    nlohmann::json json = base::ParseJson(*text).value_or(nlohmann::json::value_t::discarded);
    if (!json.is_object() || !json.contains("code") || !json["code"].is_number_integer() ||
        !json.contains("signal") || !json["signal"].is_number_integer() || !json.contains("time") ||
        !json["time"].is_string()) {
      continue;
    }
    absl::StatusOr<absl::Time> time = jobspec::ParseTimestamp(json["time"].get<std::string>());
    if (!time.ok()) continue;
    records.push_back(ReplicaExitRecord{
        .replica = entry.path().filename().string(),
        .status = ExitStatus{.code = json["code"].get<int>(), .signal = json["signal"].get<int>()},
        .time = *time});
  }
  // Oldest first: the first replica to exit badly is the likely cause.
  std::sort(records.begin(), records.end(),
            [](const ReplicaExitRecord& a, const ReplicaExitRecord& b) { return a.time < b.time; });
  return records;
}

}  // namespace trainpkg::sdk::slurm::internal
