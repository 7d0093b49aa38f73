// Name/number tables for the proto enums that the job model stores by name:
// AcceleratorType (accelerator_type.proto), Scheduling.Strategy
// (custom_job.proto) and ReservationAffinity.Type (reservation_affinity.proto).
// JobState has its own header (jobspec/job_state.h).
#ifndef TRAINPKG_JOBSPEC_INTERNAL_PROTO_ENUMS_H_
#define TRAINPKG_JOBSPEC_INTERNAL_PROTO_ENUMS_H_

#include <optional>
#include <string_view>
#include <vector>

#include "absl/types/span.h"

namespace trainpkg::jobspec::internal {

struct ProtoEnumValue {
  std::string_view name;
  int number;
};

// One proto enum. values[0] is the *_UNSPECIFIED value (number 0), which the
// model represents as "".
struct ProtoEnum {
  std::string_view type_name;  // e.g. "AcceleratorType"
  absl::Span<const ProtoEnumValue> values;

  std::string_view unspecified_name() const { return values[0].name; }
  std::optional<std::string_view> NameOf(int number) const;
  bool HasName(std::string_view name) const;
  // Every name except the unspecified one, in declaration order.
  std::vector<std::string_view> SpecifiedNames() const;
};

const ProtoEnum& AcceleratorTypeEnum();
const ProtoEnum& SchedulingStrategyEnum();
const ProtoEnum& ReservationAffinityTypeEnum();

}  // namespace trainpkg::jobspec::internal

#endif  // TRAINPKG_JOBSPEC_INTERNAL_PROTO_ENUMS_H_
