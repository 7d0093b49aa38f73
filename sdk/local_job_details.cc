#include "sdk/local_job_details.h"

#include <cstdint>
#include <limits>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "base/json_describe.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"

namespace trainpkg::sdk {
namespace {

using Json = nlohmann::json;

Json ReplicaToJson(const ReplicaDetails& replica) {
  Json out = {{"name", replica.name},       {"pid", replica.pid},
              {"pgid", replica.pgid},       {"startTime", replica.start_time},
              {"address", replica.address}, {"argv", replica.argv}};
  if (!replica.container_id.empty()) out["containerId"] = replica.container_id;
  if (!replica.host.empty()) out["host"] = replica.host;
  if (replica.restarts > 0) out["restarts"] = replica.restarts;
  if (replica.exit_status.has_value()) {
    out["exitStatus"] = replica.exit_status->signal != 0
                            ? Json{{"signal", replica.exit_status->signal}}
                            : Json{{"code", replica.exit_status->code}};
  }
  return out;
}

// Errors name the field by its path in local.json ("replicas[1].address").
absl::Status Expected(std::string_view path, std::string_view what, const Json& got) {
  return absl::InvalidArgumentError(
      fmt::format("{}: expected {}, got {}", path, what, base::DescribeJson(got)));
}

// Reads the members of one JSON object; an absent optional member leaves
// its field as it is.
class ObjectReader {
 public:
  // `path` names `object` in messages ("" for the document itself).
  ObjectReader(const Json& object, std::string path) : object_(object), path_(std::move(path)) {}

  absl::Status CheckObject() const {
    if (object_.is_object()) return absl::OkStatus();
    return Expected(path_.empty() ? "the document" : path_, "an object", object_);
  }

  // The member `key`: nullptr when absent, an error when absent but required.
  absl::StatusOr<const Json*> Member(const char* key, bool required) const {
    auto it = object_.find(key);
    if (it != object_.end()) return &*it;
    if (required) return absl::InvalidArgumentError(absl::StrCat(PathOf(key), ": missing"));
    return nullptr;
  }

  absl::Status String(const char* key, std::string* out, bool required = false) const {
    TP_ASSIGN_OR_RETURN(const Json* value, Member(key, required));
    if (value == nullptr) return absl::OkStatus();
    if (!value->is_string()) return Expected(PathOf(key), "a string", *value);
    *out = value->get<std::string>();
    return absl::OkStatus();
  }

  // A whole number from 0 to the largest `Int` (pids, start times, exit
  // codes and signals are never negative).
  template <typename Int>
  absl::Status Count(const char* key, Int* out, bool required = false) const {
    TP_ASSIGN_OR_RETURN(const Json* value, Member(key, required));
    if (value == nullptr) return absl::OkStatus();
    constexpr uint64_t kMax = static_cast<uint64_t>(std::numeric_limits<Int>::max());
    // nlohmann parses a whole number >= 0 as number_unsigned.
    if (!value->is_number_unsigned() || value->get<uint64_t>() > kMax) {
      return Expected(PathOf(key), absl::StrCat("a whole number from 0 to ", kMax), *value);
    }
    *out = static_cast<Int>(value->get<uint64_t>());
    return absl::OkStatus();
  }

  absl::Status Strings(const char* key, std::vector<std::string>* out) const {
    TP_ASSIGN_OR_RETURN(const Json* value, Member(key, /*required=*/false));
    if (value == nullptr) return absl::OkStatus();
    if (!value->is_array()) return Expected(PathOf(key), "a list of strings", *value);
    out->clear();
    for (size_t i = 0; i < value->size(); ++i) {
      const Json& item = (*value)[i];
      if (!item.is_string()) {
        return Expected(absl::StrCat(PathOf(key), "[", i, "]"), "a string", item);
      }
      out->push_back(item.get<std::string>());
    }
    return absl::OkStatus();
  }

  std::string PathOf(std::string_view key) const {
    return path_.empty() ? std::string(key) : fmt::format("{}.{}", path_, key);
  }

 private:
  const Json& object_;
  std::string path_;
};

absl::StatusOr<ReplicaDetails> ReplicaFromJson(const Json& in, const std::string& path) {
  const ObjectReader reader(in, path);
  TP_RETURN_IF_ERROR(reader.CheckObject());
  ReplicaDetails replica;
  TP_RETURN_IF_ERROR(reader.String("name", &replica.name, /*required=*/true));
  TP_RETURN_IF_ERROR(reader.Count("pid", &replica.pid));
  TP_RETURN_IF_ERROR(reader.Count("pgid", &replica.pgid));
  TP_RETURN_IF_ERROR(reader.Count("startTime", &replica.start_time));
  TP_RETURN_IF_ERROR(reader.String("address", &replica.address));
  TP_RETURN_IF_ERROR(reader.Strings("argv", &replica.argv));
  TP_RETURN_IF_ERROR(reader.String("containerId", &replica.container_id));
  TP_RETURN_IF_ERROR(reader.String("host", &replica.host));
  TP_RETURN_IF_ERROR(reader.Count("restarts", &replica.restarts));
  TP_ASSIGN_OR_RETURN(const Json* exit, reader.Member("exitStatus", /*required=*/false));
  if (exit != nullptr) {
    const ObjectReader status(*exit, reader.PathOf("exitStatus"));
    TP_RETURN_IF_ERROR(status.CheckObject());
    ExitStatus exit_status;
    TP_RETURN_IF_ERROR(status.Count("code", &exit_status.code));
    TP_RETURN_IF_ERROR(status.Count("signal", &exit_status.signal));
    replica.exit_status = exit_status;
  }
  return replica;
}

absl::StatusOr<LocalJobDetails> DetailsFromJson(const Json& in) {
  const ObjectReader reader(in, "");
  TP_RETURN_IF_ERROR(reader.CheckObject());
  LocalJobDetails details;
  TP_ASSIGN_OR_RETURN(const Json* supervisor, reader.Member("supervisor", /*required=*/true));
  const ObjectReader process(*supervisor, "supervisor");
  TP_RETURN_IF_ERROR(process.CheckObject());
  TP_RETURN_IF_ERROR(process.Count("pid", &details.supervisor.pid, /*required=*/true));
  TP_RETURN_IF_ERROR(process.Count("startTime", &details.supervisor.start_time, /*required=*/true));
  TP_ASSIGN_OR_RETURN(const Json* replicas, reader.Member("replicas", /*required=*/false));
  if (replicas == nullptr) return details;
  if (!replicas->is_array()) return Expected("replicas", "a list", *replicas);
  for (size_t i = 0; i < replicas->size(); ++i) {
    TP_ASSIGN_OR_RETURN(ReplicaDetails replica,
                        ReplicaFromJson((*replicas)[i], absl::StrCat("replicas[", i, "]")));
    details.replicas.push_back(std::move(replica));
  }
  return details;
}

}  // namespace

std::string FormatLocalJobDetails(const LocalJobDetails& details) {
  Json replicas = Json::array();
  for (const ReplicaDetails& replica : details.replicas) replicas.push_back(ReplicaToJson(replica));
  Json out = {{"supervisor",
               {{"pid", details.supervisor.pid}, {"startTime", details.supervisor.start_time}}},
              {"replicas", replicas}};
  return out.dump(2) + "\n";
}

absl::StatusOr<LocalJobDetails> ParseLocalJobDetails(std::string_view text) {
  absl::StatusOr<Json> in = base::ParseJson(text);
  absl::StatusOr<LocalJobDetails> details =
      in.ok() ? DetailsFromJson(*in) : absl::StatusOr<LocalJobDetails>(in.status());
  if (details.ok()) return details;
  return absl::InvalidArgumentError(
      absl::StrCat("local job details: ", details.status().message()));
}

}  // namespace trainpkg::sdk
