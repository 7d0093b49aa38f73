// The environment Vertex gives the three replicas of a 1 chief + 2 workers job
// on 127.0.0.1, for tests that start those replicas as processes.
#ifndef TRAINPKG_TESTS_TRAINER_RUNTIME_CHIEF_AND_WORKERS_ENV_H_
#define TRAINPKG_TESTS_TRAINER_RUNTIME_CHIEF_AND_WORKERS_ENV_H_

#include <map>
#include <string>
#include <vector>

namespace trainpkg::testing {

// CLUSTER_SPEC, TF_CONFIG, CLOUD_ML_JOB_ID, ... for ranks 0 (workerpool0-0),
// 1 and 2 (workerpool1-0/1), each with a free 127.0.0.1 port. `image` is the
// containerSpec.imageUri recorded in the job. Fails the current test when the
// env cannot be made.
std::vector<std::map<std::string, std::string>> ChiefAndTwoWorkersEnv(const std::string& job_id,
                                                                      const std::string& image);

// envp-style "NAME=value" strings for posix_spawn; keep the returned vector
// alive while the char* pointers are used.
std::vector<std::string> EnvStrings(const std::map<std::string, std::string>& env);

}  // namespace trainpkg::testing

#endif  // TRAINPKG_TESTS_TRAINER_RUNTIME_CHIEF_AND_WORKERS_ENV_H_
