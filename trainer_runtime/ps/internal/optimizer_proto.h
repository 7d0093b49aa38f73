// The optimizer a Configure request names, from its wire form: what the
// parameter server's Configure handler (and its fuzz target) hands the store.
#ifndef TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_OPTIMIZER_PROTO_H_
#define TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_OPTIMIZER_PROTO_H_

#include "trainer_runtime/ps/optimizer_config.h"
#include "trainer_runtime/ps/proto/ps.pb.h"

namespace trainpkg::ps::internal {

// Every field is copied as sent; ParameterStore::Configure validates them.
OptimizerConfig OptimizerConfigFromProto(const proto::OptimizerConfig& p);

}  // namespace trainpkg::ps::internal

#endif  // TRAINPKG_TRAINER_RUNTIME_PS_INTERNAL_OPTIMIZER_PROTO_H_
