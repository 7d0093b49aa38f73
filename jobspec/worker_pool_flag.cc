#include "jobspec/worker_pool_flag.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "base/closest_match.h"
#include "base/status_macros.h"
#include "base/utf8.h"
#include "fmt/format.h"
#include "jobspec/internal/parse_number.h"
#include "jobspec/internal/proto_enums.h"

namespace trainpkg::jobspec {
namespace {

constexpr std::array<std::string_view, 9> kKeys = {
    "machine-type",      "replica-count",       "accelerator-type",
    "accelerator-count", "container-image-uri", "executor-image-uri",
    "python-module",     "disk-type",           "disk-size",
};

// key -> value, as given in one flag value.
using FlagEntries = std::map<std::string, std::string, std::less<>>;

absl::Status FlagError(std::string_view message) {
  return absl::InvalidArgumentError(fmt::format("--worker-pool-spec: {}", message));
}

absl::StatusOr<FlagEntries> SplitKeyValues(std::string_view value) {
  FlagEntries entries;
  for (size_t begin = 0; begin <= value.size();) {
    size_t comma = std::min(value.find(',', begin), value.size());
    std::string_view item = value.substr(begin, comma - begin);
    begin = comma + 1;
    if (item.empty()) return FlagError("empty entry (two commas in a row, or a trailing comma)");
    size_t equals = item.find('=');
    if (equals == std::string_view::npos) {
      return FlagError(fmt::format("'{0}' is not KEY=VALUE; write e.g. {0}=VALUE", item));
    }
    std::string_view key = item.substr(0, equals);
    std::string_view text = item.substr(equals + 1);
    if (std::find(kKeys.begin(), kKeys.end(), key) == kKeys.end()) {
      return FlagError(fmt::format("unknown key '{}'{}; valid keys: {}", key,
                                   base::DidYouMean(key, kKeys), fmt::join(kKeys, ", ")));
    }
    if (text.empty()) return FlagError(fmt::format("{} has an empty value", key));
    if (!entries.emplace(key, text).second) {
      return FlagError(fmt::format("{} is given twice; give each key once", key));
    }
  }
  return entries;
}

// A count: a whole number written in digits.
template <typename Int>
absl::StatusOr<Int> ParseCount(std::string_view key, std::string_view text) {
  bool digits_only = std::all_of(text.begin(), text.end(), [](char c) {
    return absl::ascii_isdigit(static_cast<unsigned char>(c));
  });
  std::optional<Int> value = internal::ParseNumber<Int>(text);
  if (!digits_only || !value.has_value()) {
    return FlagError(fmt::format("{} must be a whole number, got '{}'", key, text));
  }
  return *value;
}

// gcloud's per-pool rules (command_lib/ai/custom_jobs/validation.py).
absl::Status CheckGcloudRules(const FlagEntries& entries) {
  if (!entries.contains("machine-type")) {
    return FlagError("machine-type is required, e.g. machine-type=n1-standard-4");
  }
  if (entries.contains("accelerator-count") && !entries.contains("accelerator-type")) {
    return FlagError(
        "accelerator-count needs accelerator-type, e.g. accelerator-type=NVIDIA_TESLA_T4");
  }
  if (auto it = entries.find("accelerator-type"); it != entries.end()) {
    const internal::ProtoEnum& types = internal::AcceleratorTypeEnum();
    std::vector<std::string_view> valid = types.SpecifiedNames();
    if (std::find(valid.begin(), valid.end(), it->second) == valid.end()) {
      return FlagError(fmt::format("unknown accelerator-type '{}'{}; valid types: {}", it->second,
                                   base::DidYouMean(it->second, valid), fmt::join(valid, ", ")));
    }
  }
  bool has_container = entries.contains("container-image-uri");
  bool has_executor = entries.contains("executor-image-uri");
  if (has_container == has_executor) {
    return FlagError("exactly one of container-image-uri or executor-image-uri is required");
  }
  if (has_container && entries.contains("python-module")) {
    return FlagError(
        "python-module goes with executor-image-uri, not with container-image-uri; remove it or "
        "use executor-image-uri");
  }
  if (has_executor && !entries.contains("python-module")) {
    return FlagError(
        "python-module is required with executor-image-uri, e.g. python-module=trainer.task");
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<WorkerPoolSpec> ParseWorkerPoolSpecFlag(std::string_view value) {
  WorkerPoolSpec pool;
  if (value.empty()) return pool;  // a placeholder pool
  if (std::optional<size_t> bad = base::FirstInvalidUtf8(value); bad.has_value()) {
    return FlagError(
        fmt::format("byte {} of the value is not UTF-8 (values must be UTF-8 text)", *bad + 1));
  }
  TP_ASSIGN_OR_RETURN(FlagEntries entries, SplitKeyValues(value));
  TP_RETURN_IF_ERROR(CheckGcloudRules(entries));

  MachineSpec& machine = pool.machine_spec.emplace();
  machine.machine_type = entries.at("machine-type");
  pool.replica_count = 1;
  if (auto it = entries.find("replica-count"); it != entries.end()) {
    TP_ASSIGN_OR_RETURN(pool.replica_count, ParseCount<int64_t>(it->first, it->second));
  }
  if (auto it = entries.find("accelerator-type"); it != entries.end()) {
    machine.accelerator_type = it->second;
    machine.accelerator_count = 1;  // gcloud's default
  }
  if (auto it = entries.find("accelerator-count"); it != entries.end()) {
    TP_ASSIGN_OR_RETURN(machine.accelerator_count, ParseCount<int32_t>(it->first, it->second));
  }
  if (auto it = entries.find("container-image-uri"); it != entries.end()) {
    pool.container_spec.emplace().image_uri = it->second;
  } else {
    PythonPackageSpec& python = pool.python_package_spec.emplace();
    python.executor_image_uri = entries.at("executor-image-uri");
    python.python_module = entries.at("python-module");
  }
  auto disk_type = entries.find("disk-type");
  auto disk_size = entries.find("disk-size");
  if (disk_type != entries.end() || disk_size != entries.end()) {
    DiskSpec& disk = pool.disk_spec.emplace();
    if (disk_type != entries.end()) disk.boot_disk_type = disk_type->second;
    if (disk_size != entries.end()) {
      TP_ASSIGN_OR_RETURN(disk.boot_disk_size_gb,
                          ParseCount<int32_t>(disk_size->first, disk_size->second));
    }
  }
  return pool;
}

}  // namespace trainpkg::jobspec
