// A CustomJob from a native trainer binary: the C++ counterpart of the Python
// SDK's CustomJob.from_local_script. Part of trainpkg_image_builder (it
// builds and pushes an image), apart from trainpkg_sdk's CustomJob.
//
//   sdk::LocalBinaryJobOptions request;
//   request.display_name = "digits";
//   request.bundle.binary = "build/samples/digits_multiworker/digits_multiworker";
//   request.image_uri = "127.0.0.1:5000/trainers/digits:v1";
//   request.replica_count = 3;  // 1 chief + 2 workers
//   TP_ASSIGN_OR_RETURN(sdk::CustomJob job, sdk::CustomJobFromLocalBinary(request, options));
//   TP_ASSIGN_OR_RETURN(jobspec::CustomJob done, job.Run());
#ifndef TRAINPKG_SDK_CUSTOM_JOB_FROM_LOCAL_BINARY_H_
#define TRAINPKG_SDK_CUSTOM_JOB_FROM_LOCAL_BINARY_H_

#include "absl/status/statusor.h"
#include "sdk/custom_job.h"
#include "sdk/local_binary_job_options.h"

namespace trainpkg::sdk {

// Builds an image from request.bundle (a native binary and its shared
// libraries), tags it request.image_uri in the local image store
// (options.home's, else $TRAINPKG_HOME's or ~/.trainpkg's), pushes it there
// with docker's credentials, then returns CustomJob::Create() of a job whose
// pool 0 runs one chief and pool 1 the other replica_count - 1 workers, all
// on that image.
// Errors: InvalidArgument for an invalid job or image_uri (naming the
// field), the build's errors (NotFound for a missing binary or library),
// the registry's errors prefixed "pushing <image_uri>: ", then Create()'s.
absl::StatusOr<CustomJob> CustomJobFromLocalBinary(const LocalBinaryJobOptions& request,
                                                   CustomJobOptions options = {});

}  // namespace trainpkg::sdk

#endif  // TRAINPKG_SDK_CUSTOM_JOB_FROM_LOCAL_BINARY_H_
