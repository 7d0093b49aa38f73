// The on-disk record of local tuning jobs, beside the CustomJob store
// (sdk/job_store.h) in the same home:
//
//   <home>/hptuning_jobs/<id>/job.json        the HyperparameterTuningJob as
//                                             Vertex REST JSON, trials
//                                             included (atomic rewrites)
//                             cancel_request  present once someone asked
//                                             the study to stop
//
// Each trial's CustomJob is recorded in the CustomJob store as usual (its id
// in Trial.customJob), so `trainpkg jobs list` shows trials too. Holds only
// the home path; safe from any thread. Errors name the file.
#ifndef TRAINPKG_SDK_HPTUNE_TUNING_JOB_STORE_H_
#define TRAINPKG_SDK_HPTUNE_TUNING_JOB_STORE_H_

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "jobspec/hyperparameter_tuning_job.h"

namespace trainpkg::sdk::hptune {

class TuningJobStore {
 public:
  explicit TuningJobStore(std::filesystem::path home) : home_(std::move(home)) {}

  std::filesystem::path JobDir(std::string_view id) const;
  std::filesystem::path JobFile(std::string_view id) const;
  std::filesystem::path CancelRequestFile(std::string_view id) const;

  // Creates the job directory (0700; the home and hptuning_jobs/ made
  // private first, as sdk/job_store.h does; the files are written 0600).
  // AlreadyExists when the id is taken; the filesystem's error otherwise.
  absl::Status CreateJobDir(std::string_view id) const;
  absl::Status WriteJob(std::string_view id, const jobspec::HyperparameterTuningJob& job) const;
  // NotFound when there is no such tuning job.
  absl::StatusOr<jobspec::HyperparameterTuningJob> ReadJob(std::string_view id) const;
  bool Exists(std::string_view id) const;
  // Ids of every tuning job with a job.json, sorted; none when home is absent.
  absl::StatusOr<std::vector<std::string>> ListJobIds() const;

  // NotFound when there is no such tuning job.
  absl::Status RequestCancel(std::string_view id) const;
  bool CancelRequested(std::string_view id) const;

 private:
  std::filesystem::path home_;
};

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_TUNING_JOB_STORE_H_
