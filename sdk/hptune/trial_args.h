// How a trial's parameters reach the trainer: as command-line arguments
// `--<parameterId>=<value>` appended after the worker pool's args, one per
// parameter of the trial, in the trial's parameter order (reference/vertex.md
// §2.4: Vertex AI's observed format).
//
// Value text:
//   integer parameters  decimal digits, no fraction:            --num_units=64
//   double and discrete shortest text that reads back as the same double,
//                       with ".0" added to whole numbers as Vertex AI
//                       (which sends Python floats) does:       --lr=0.0031622776601683794
//                                                               --batch=256.0
//   categorical         the value verbatim:                     --activation=relu
#ifndef TRAINPKG_SDK_HPTUNE_TRIAL_ARGS_H_
#define TRAINPKG_SDK_HPTUNE_TRIAL_ARGS_H_

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "jobspec/hyperparameter_tuning_job.h"
#include "jobspec/study_spec.h"

namespace trainpkg::sdk::hptune {

// The value text for `parameter` (rules above). InvalidArgument when the
// value's type does not fit the parameter (a string for a number parameter,
// a fraction for an integer one, ...).
absl::StatusOr<std::string> FormatParameterValue(const jobspec::ParameterSpec& parameter,
                                                 const jobspec::ParameterValueType& value);

// "--<id>=<value>" for each of `parameters`, looked up in `spec`
// (conditional children included). InvalidArgument naming the parameter
// when it is not in `spec` or its value does not fit.
absl::StatusOr<std::vector<std::string>> TrialArgs(
    const jobspec::StudySpec& spec, const std::vector<jobspec::TrialParameter>& parameters);

}  // namespace trainpkg::sdk::hptune

#endif  // TRAINPKG_SDK_HPTUNE_TRIAL_ARGS_H_
