#include "jobspec/internal/proto_enums.h"

#include <array>

namespace trainpkg::jobspec::internal {
namespace {

// google/cloud/aiplatform/v1/accelerator_type.proto (googleapis commit
// 7d4e6ae6c363b860a4856bc4e74acd8421ae27fc).
constexpr std::array<ProtoEnumValue, 19> kAcceleratorTypes = {{
    {"ACCELERATOR_TYPE_UNSPECIFIED", 0},
    {"NVIDIA_TESLA_K80", 1},
    {"NVIDIA_TESLA_P100", 2},
    {"NVIDIA_TESLA_V100", 3},
    {"NVIDIA_TESLA_P4", 4},
    {"NVIDIA_TESLA_T4", 5},
    {"NVIDIA_TESLA_A100", 8},
    {"NVIDIA_A100_80GB", 9},
    {"NVIDIA_L4", 11},
    {"NVIDIA_H100_80GB", 13},
    {"NVIDIA_H100_MEGA_80GB", 14},
    {"NVIDIA_H200_141GB", 15},
    {"NVIDIA_B200", 16},
    {"NVIDIA_GB200", 17},
    {"NVIDIA_RTX_PRO_6000", 18},
    {"TPU_V2", 6},
    {"TPU_V3", 7},
    {"TPU_V4_POD", 10},
    {"TPU_V5_LITEPOD", 12},
}};

// Scheduling.Strategy in google/cloud/aiplatform/v1/custom_job.proto.
constexpr std::array<ProtoEnumValue, 6> kSchedulingStrategies = {{
    {"STRATEGY_UNSPECIFIED", 0},
    {"ON_DEMAND", 1},
    {"LOW_COST", 2},
    {"STANDARD", 3},
    {"SPOT", 4},
    {"FLEX_START", 6},
}};

// ReservationAffinity.Type in reservation_affinity.proto.
constexpr std::array<ProtoEnumValue, 4> kReservationAffinityTypes = {{
    {"TYPE_UNSPECIFIED", 0},
    {"NO_RESERVATION", 1},
    {"ANY_RESERVATION", 2},
    {"SPECIFIC_RESERVATION", 3},
}};

}  // namespace

std::optional<std::string_view> ProtoEnum::NameOf(int number) const {
  for (const ProtoEnumValue& value : values) {
    if (value.number == number) return value.name;
  }
  return std::nullopt;
}

bool ProtoEnum::HasName(std::string_view name) const {
  for (const ProtoEnumValue& value : values) {
    if (value.name == name) return true;
  }
  return false;
}

std::vector<std::string_view> ProtoEnum::SpecifiedNames() const {
  std::vector<std::string_view> names;
  for (const ProtoEnumValue& value : values.subspan(1)) names.push_back(value.name);
  return names;
}

const ProtoEnum& AcceleratorTypeEnum() {
  static const ProtoEnum kEnum{"AcceleratorType", kAcceleratorTypes};
  return kEnum;
}

const ProtoEnum& SchedulingStrategyEnum() {
  static const ProtoEnum kEnum{"Scheduling.Strategy", kSchedulingStrategies};
  return kEnum;
}

const ProtoEnum& ReservationAffinityTypeEnum() {
  static const ProtoEnum kEnum{"ReservationAffinity.Type", kReservationAffinityTypes};
  return kEnum;
}

}  // namespace trainpkg::jobspec::internal
