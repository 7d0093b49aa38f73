// Name/number tables of the study.proto enums (GoalType, ScaleType,
// Algorithm, MeasurementSelectionType, Trial.State) and strict reading of
// them from JSON: unlike EnumValue (json_object_reader.h), unknown names are
// errors, because a suggester cannot act on a value it does not know.
#ifndef TRAINPKG_JOBSPEC_INTERNAL_STUDY_ENUMS_H_
#define TRAINPKG_JOBSPEC_INTERNAL_STUDY_ENUMS_H_

#include <string_view>

#include "absl/status/statusor.h"
#include "jobspec/internal/proto_enums.h"
#include "nlohmann/json.hpp"

namespace trainpkg::jobspec::internal {

const ProtoEnum& GoalTypeEnum();
const ProtoEnum& ScaleTypeEnum();
const ProtoEnum& AlgorithmEnum();
const ProtoEnum& MeasurementSelectionTypeEnum();
const ProtoEnum& TrialStateEnum();

// The number of a known enum value given by name or number (0 for the
// unspecified one); InvalidArgument "<path>: unknown <type> 'X'; did you
// mean ...? / valid values: ..." otherwise.
absl::StatusOr<int> StrictEnumNumber(const nlohmann::json& json, std::string_view path,
                                     const ProtoEnum& proto_enum);

// The name of `number`. REQUIRES: `number` is in the table (aborts otherwise).
std::string_view EnumName(const ProtoEnum& proto_enum, int number);

}  // namespace trainpkg::jobspec::internal

#endif  // TRAINPKG_JOBSPEC_INTERNAL_STUDY_ENUMS_H_
