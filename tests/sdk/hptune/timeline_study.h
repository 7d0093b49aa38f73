// The study the tuning tests run: one double parameter x in [0, 1], random
// search, metric "score" maximised, each trial one replica of
// testdata/timeline_trainer.sh, which sleeps `sleep` seconds and records its
// start and end in `timeline_dir` so tests can check how trials overlapped.
#ifndef TRAINPKG_TESTS_SDK_HPTUNE_TIMELINE_STUDY_H_
#define TRAINPKG_TESTS_SDK_HPTUNE_TIMELINE_STUDY_H_

#include <filesystem>
#include <string>

#include "jobspec/hyperparameter_tuning_job.h"

namespace trainpkg::sdk::hptune::testing {

jobspec::HyperparameterTuningJob TimelineStudy(const std::string& display_name, int max_trials,
                                               int parallel, const std::string& sleep,
                                               const std::filesystem::path& timeline_dir);

}  // namespace trainpkg::sdk::hptune::testing

#endif  // TRAINPKG_TESTS_SDK_HPTUNE_TIMELINE_STUDY_H_
