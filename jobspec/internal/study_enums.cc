#include "jobspec/internal/study_enums.h"

#include <array>
#include <string>
#include <vector>

#include "base/check.h"
#include "base/closest_match.h"
#include "base/json_describe.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "jobspec/internal/vertex_json.h"

namespace trainpkg::jobspec::internal {
namespace {

// google/cloud/aiplatform/v1/study.proto.
constexpr std::array<ProtoEnumValue, 3> kGoalTypes = {{
    {"GOAL_TYPE_UNSPECIFIED", 0},
    {"MAXIMIZE", 1},
    {"MINIMIZE", 2},
}};

constexpr std::array<ProtoEnumValue, 4> kScaleTypes = {{
    {"SCALE_TYPE_UNSPECIFIED", 0},
    {"UNIT_LINEAR_SCALE", 1},
    {"UNIT_LOG_SCALE", 2},
    {"UNIT_REVERSE_LOG_SCALE", 3},
}};

constexpr std::array<ProtoEnumValue, 3> kAlgorithms = {{
    {"ALGORITHM_UNSPECIFIED", 0},
    {"GRID_SEARCH", 2},
    {"RANDOM_SEARCH", 3},
}};

constexpr std::array<ProtoEnumValue, 3> kMeasurementSelectionTypes = {{
    {"MEASUREMENT_SELECTION_TYPE_UNSPECIFIED", 0},
    {"LAST_MEASUREMENT", 1},
    {"BEST_MEASUREMENT", 2},
}};

constexpr std::array<ProtoEnumValue, 6> kTrialStates = {{
    {"STATE_UNSPECIFIED", 0},
    {"REQUESTED", 1},
    {"ACTIVE", 2},
    {"STOPPING", 3},
    {"SUCCEEDED", 4},
    {"INFEASIBLE", 5},
}};

}  // namespace

const ProtoEnum& GoalTypeEnum() {
  static const ProtoEnum kEnum{"StudySpec.MetricSpec.GoalType", kGoalTypes};
  return kEnum;
}

const ProtoEnum& ScaleTypeEnum() {
  static const ProtoEnum kEnum{"StudySpec.ParameterSpec.ScaleType", kScaleTypes};
  return kEnum;
}

const ProtoEnum& AlgorithmEnum() {
  static const ProtoEnum kEnum{"StudySpec.Algorithm", kAlgorithms};
  return kEnum;
}

const ProtoEnum& MeasurementSelectionTypeEnum() {
  static const ProtoEnum kEnum{"StudySpec.MeasurementSelectionType", kMeasurementSelectionTypes};
  return kEnum;
}

const ProtoEnum& TrialStateEnum() {
  static const ProtoEnum kEnum{"Trial.State", kTrialStates};
  return kEnum;
}

absl::StatusOr<int> StrictEnumNumber(const nlohmann::json& json, std::string_view path,
                                     const ProtoEnum& proto_enum) {
  if (json.is_number_integer()) {
    TP_ASSIGN_OR_RETURN(int32_t number, base::JsonInt32(json, path, kVertexJson));
    if (proto_enum.NameOf(number).has_value()) return number;
    return UnknownEnumNumber(path, proto_enum, number);
  }
  if (json.is_string()) {
    const std::string& name = json.get_ref<const std::string&>();
    for (const ProtoEnumValue& value : proto_enum.values) {
      if (value.name == name) return value.number;
    }
    std::vector<std::string_view> names;
    for (const ProtoEnumValue& value : proto_enum.values) names.push_back(value.name);
    std::string suggestion = base::DidYouMean(name, names);
    if (suggestion.empty()) suggestion = fmt::format("; valid values: {}", fmt::join(names, ", "));
    return kVertexJson.Error(
        path, fmt::format("unknown {} '{}'{}", proto_enum.type_name, name, suggestion));
  }
  return kVertexJson.Error(path,
                           fmt::format("expected an enum value of {} (name or number), got {}",
                                       proto_enum.type_name, base::DescribeJson(json)));
}

std::string_view EnumName(const ProtoEnum& proto_enum, int number) {
  std::optional<std::string_view> name = proto_enum.NameOf(number);
  TP_CHECK(name.has_value(), "{} has no value {}", proto_enum.type_name, number);
  return *name;
}

}  // namespace trainpkg::jobspec::internal
