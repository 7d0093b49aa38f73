// What sdk::CustomJobFromLocalBinary (sdk/custom_job_from_local_binary.h)
// needs: the C++ counterpart of the Python SDK's CustomJob.from_local_script's
// arguments, for a native trainer.
#ifndef TRAINPKG_SDK_LOCAL_BINARY_JOB_OPTIONS_H_
#define TRAINPKG_SDK_LOCAL_BINARY_JOB_OPTIONS_H_

#include <cstdint>
#include <string>
#include <vector>

#include "jobspec/custom_job.h"
#include "sdk/image_builder.h"

namespace trainpkg::sdk {

struct LocalBinaryJobOptions {
  std::string display_name;  // required
  // The image: bundle.binary (required) and the shared libraries it loads,
  // no base image (`trainpkg build --bundle-libs`).
  BundleOptions bundle;
  // Required: the registry reference [REGISTRY/]REPOSITORY[:TAG] the image is
  // stored as (in the local image store) and pushed to; every pool runs it.
  std::string image_uri;
  std::vector<std::string> args;       // containerSpec.args
  std::vector<jobspec::EnvVar> env;    // containerSpec.env
  int64_t replica_count = 1;           // 1: a chief only; N > 1: a chief and N - 1 workers
  std::string machine_type = "n1-standard-4";
  std::string base_output_dir;         // jobSpec.baseOutputDirectory; "" as in CustomJob
  // Registries ("host[:port]") reached over plain HTTP or without verifying
  // their certificate; loopback registries may use plain HTTP anyway.
  std::vector<std::string> insecure_registries;
};

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_LOCAL_BINARY_JOB_OPTIONS_H_
