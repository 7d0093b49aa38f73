#include "sdk/local_job_details.h"

#include "absl/strings/str_cat.h"
#include "base/json_parse.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk {
namespace {

using nlohmann::json;

json ReplicaToJson(const ReplicaDetails& replica) {
  json out = {{"name", replica.name},       {"pid", replica.pid},
              {"pgid", replica.pgid},       {"startTime", replica.start_time},
              {"address", replica.address}, {"argv", replica.argv}};
  if (!replica.container_id.empty()) out["containerId"] = replica.container_id;
  if (replica.exit_status.has_value()) {
    out["exitStatus"] = replica.exit_status->signal != 0
                            ? json{{"signal", replica.exit_status->signal}}
                            : json{{"code", replica.exit_status->code}};
  }
  return out;
}

ReplicaDetails ReplicaFromJson(const json& in) {
  ReplicaDetails replica;
  replica.name = in.at("name").get<std::string>();
  replica.pid = in.value("pid", 0);
  replica.pgid = in.value("pgid", 0);
  replica.start_time = in.value("startTime", uint64_t{0});
  replica.address = in.value("address", "");
  replica.argv = in.value("argv", std::vector<std::string>{});
  replica.container_id = in.value("containerId", "");
  if (auto it = in.find("exitStatus"); it != in.end()) {
    replica.exit_status =
        ExitStatus{.code = it->value("code", 0), .signal = it->value("signal", 0)};
  }
  return replica;
}

}  // namespace

std::string FormatLocalJobDetails(const LocalJobDetails& details) {
  json replicas = json::array();
  for (const ReplicaDetails& replica : details.replicas) replicas.push_back(ReplicaToJson(replica));
  json out = {{"supervisor",
               {{"pid", details.supervisor.pid}, {"startTime", details.supervisor.start_time}}},
              {"replicas", replicas}};
  return out.dump(2) + "\n";
}

absl::StatusOr<LocalJobDetails> ParseLocalJobDetails(std::string_view text) {
  try {
    json in = base::ParseJson(text).value_or(json::value_t::discarded);
    LocalJobDetails details;
    const json& supervisor = in.at("supervisor");
    details.supervisor.pid = supervisor.at("pid").get<int>();
    details.supervisor.start_time = supervisor.at("startTime").get<uint64_t>();
    for (const json& replica : in.value("replicas", json::array())) {
      details.replicas.push_back(ReplicaFromJson(replica));
    }
    return details;
  } catch (const json::exception& e) {
    return absl::InvalidArgumentError(absl::StrCat("local job details: ", e.what()));
  }
}

}  // namespace trainpkg::sdk
