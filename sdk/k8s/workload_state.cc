#include "sdk/k8s/workload_state.h"

#include <cstdint>
#include <string>

#include "jobspec/job_state.h"
#include "sdk/k8s/internal/json_text.h"

namespace trainpkg::sdk::k8s {
namespace {

using internal::Text;
using jobspec::JobState;
using Json = nlohmann::json;

const Json& Status(const Json& object) {
  static const Json kEmpty = Json::object();
  auto it = object.find("status");
  return it != object.end() && it->is_object() ? *it : kEmpty;
}

// object[key] when `object` is an object holding a whole number there, else
// 0: a reply's count of another type counts nothing (and never throws).
int64_t Count(const Json& object, const char* key) {
  if (!object.is_object()) return 0;
  auto it = object.find(key);
  return it != object.end() && it->is_number_integer() ? it->get<int64_t>() : 0;
}

// The True conditions of `status`, in order.
std::vector<Json> TrueConditions(const Json& status) {
  std::vector<Json> conditions;
  auto it = status.find("conditions");
  if (it == status.end() || !it->is_array()) return conditions;
  for (const Json& c : *it) {
    if (c.is_object() && Text(c, "status") == "True") conditions.push_back(c);
  }
  return conditions;
}

WorkloadState Failed(const Json& condition) {
  const bool deadline = Text(condition, "reason") == "DeadlineExceeded";
  std::string message = Text(condition, "message");
  if (message.empty()) message = "the workload failed";
  // The codes the other backends record (sdk/internal/job_errors.h):
  // DEADLINE_EXCEEDED (4) for a timeout, INVALID_ARGUMENT (3) for a failure.
  return {.state = JobState::kFailed,
          .error = jobspec::RpcStatus{.code = deadline ? 4 : 3, .message = message}};
}

WorkloadState JobSetState(const Json& status) {
  const std::string terminal = Text(status, "terminalState");
  std::vector<Json> conditions = TrueConditions(status);
  // Failed before Completed: a failure wins whatever order the conditions
  // were written in.
  for (const Json& c : conditions) {
    if (Text(c, "type") == "Failed") return Failed(c);
  }
  if (terminal == "Failed") return Failed(Json::object());
  for (const Json& c : conditions) {
    if (Text(c, "type") == "Completed") return {.state = JobState::kSucceeded, .error = {}};
  }
  if (terminal == "Completed") return {.state = JobState::kSucceeded, .error = {}};
  auto jobs = status.find("replicatedJobsStatus");
  if (jobs != status.end() && jobs->is_array()) {
    for (const Json& j : *jobs) {
      if (Count(j, "active") > 0 || Count(j, "ready") > 0 || Count(j, "succeeded") > 0) {
        return {.state = JobState::kRunning, .error = {}};
      }
    }
  }
  return {.state = JobState::kPending, .error = {}};
}

WorkloadState KubeflowState(const Json& status) {
  std::vector<Json> conditions = TrueConditions(status);
  if (conditions.empty()) return {.state = JobState::kQueued, .error = {}};
  // The operator appends conditions as the job moves on: the last True one
  // is the current state.
  const Json& last = conditions.back();
  const std::string type = Text(last, "type");
  if (type == "Succeeded") return {.state = JobState::kSucceeded, .error = {}};
  if (type == "Failed") return Failed(last);
  if (type == "Running" || type == "Restarting") return {.state = JobState::kRunning, .error = {}};
  return {.state = JobState::kPending, .error = {}};
}

}  // namespace

WorkloadState ReadWorkloadState(WorkloadKind kind, const Json& object) {
  return kind == WorkloadKind::kJobSet ? JobSetState(Status(object))
                                       : KubeflowState(Status(object));
}

void SetJobState(jobspec::CustomJob& job, jobspec::JobState state,
                 std::optional<jobspec::RpcStatus> error, absl::Time now) {
  job.state = state;
  job.error = std::move(error);
  if (!job.create_time.has_value()) job.create_time = now;
  if (state == jobspec::JobState::kRunning && !job.start_time.has_value()) job.start_time = now;
  if (jobspec::IsTerminal(state)) job.end_time = now;
  job.update_time = now;
}

}  // namespace trainpkg::sdk::k8s
