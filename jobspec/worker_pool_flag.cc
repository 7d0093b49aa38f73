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

constexpr std::array<std::string_view, 15> kKeys = {
    "machine-type",        "replica-count",      "accelerator-type", "accelerator-count",
    "container-image-uri", "executor-image-uri", "python-module",    "disk-type",
    "disk-size",           "local-package-path", "script",           "requirements",
    "extra-packages",      "extra-dirs",         "output-image-uri",
};
// Keys that only the first flag's autopackaging may use.
constexpr std::array<std::string_view, 5> kAutopackagingOnlyKeys = {
    "script", "requirements", "extra-packages", "extra-dirs", "output-image-uri"};
// What a later pool may not name when the first one is autopackaged: it runs
// the image built from the first one's package.
constexpr std::array<std::string_view, 9> kSoftwareKeys = {
    "executor-image-uri", "container-image-uri", "python-module", "script",
    "requirements",       "extra-packages",      "extra-dirs",    "local-package-path",
    "output-image-uri"};

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

// The keys of `keys` that `entries` has, joined, or "" when none.
template <size_t N>
std::string PresentKeys(const FlagEntries& entries, const std::array<std::string_view, N>& keys) {
  std::vector<std::string_view> present;
  for (std::string_view key : keys) {
    if (entries.contains(key)) present.push_back(key);
  }
  return fmt::format("{}", fmt::join(present, ", "));
}

// gcloud's hardware rules (command_lib/ai/custom_jobs/validation.py).
absl::Status CheckHardware(const FlagEntries& entries) {
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
  return absl::OkStatus();
}

// gcloud's software rules for a pool without local-package-path.
absl::Status CheckSoftware(const FlagEntries& entries) {
  if (std::string keys = PresentKeys(entries, kAutopackagingOnlyKeys); !keys.empty()) {
    return FlagError(fmt::format(
        "{} only go with local-package-path=DIR, which only the first --worker-pool-spec may "
        "give",
        keys));
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

// The hardware of a pool (machine, replica count, disk); software is the caller's.
absl::StatusOr<WorkerPoolSpec> HardwarePool(const FlagEntries& entries) {
  WorkerPoolSpec pool;
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

// A pool that names its own software (no autopackaging).
absl::StatusOr<WorkerPoolSpec> PlainPool(const FlagEntries& entries) {
  TP_RETURN_IF_ERROR(CheckSoftware(entries));
  TP_ASSIGN_OR_RETURN(WorkerPoolSpec pool, HardwarePool(entries));
  if (auto it = entries.find("container-image-uri"); it != entries.end()) {
    pool.container_spec.emplace().image_uri = it->second;
  } else {
    PythonPackageSpec& python = pool.python_package_spec.emplace();
    python.executor_image_uri = entries.at("executor-image-uri");
    python.python_module = entries.at("python-module");
  }
  return pool;
}

// `path` (the value of `key`) as a relative path inside the package.
absl::Status CheckInsidePackage(std::string_view key, std::string_view path) {
  if (path.starts_with('/')) {
    return FlagError(fmt::format(
        "{}={} is absolute; give a path relative to local-package-path, inside it", key, path));
  }
  int depth = 0;
  for (size_t begin = 0; begin <= path.size();) {
    size_t slash = std::min(path.find('/', begin), path.size());
    std::string_view part = path.substr(begin, slash - begin);
    begin = slash + 1;
    if (part == "..")
      --depth;
    else if (!part.empty() && part != ".")
      ++depth;
    if (depth < 0) {
      return FlagError(fmt::format(
          "{}={} leaves local-package-path; the image is built from that directory alone, so "
          "give a path inside it",
          key, path));
    }
  }
  return absl::OkStatus();
}

// gcloud's ';'-separated list value.
absl::StatusOr<std::vector<std::string>> SplitList(std::string_view key, std::string_view text) {
  std::vector<std::string> items;
  for (size_t begin = 0; begin <= text.size();) {
    size_t semicolon = std::min(text.find(';', begin), text.size());
    std::string_view item = text.substr(begin, semicolon - begin);
    begin = semicolon + 1;
    if (item.empty()) {
      return FlagError(
          fmt::format("{} has an empty item; separate items with one ';', e.g. "
                      "{}=A;B",
                      key, key));
    }
    items.emplace_back(item);
  }
  return items;
}

// A dotted module name: identifiers (letters, digits, '_'; not starting
// with a digit) joined by '.'.
bool IsModuleName(std::string_view name) {
  for (size_t begin = 0; begin <= name.size();) {
    size_t dot = std::min(name.find('.', begin), name.size());
    std::string_view part = name.substr(begin, dot - begin);
    begin = dot + 1;
    if (part.empty() || absl::ascii_isdigit(static_cast<unsigned char>(part[0]))) return false;
    for (char c : part) {
      if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
    }
  }
  return true;
}

// The first flag with local-package-path: gcloud's rules for it, then what
// it asks to build.
absl::StatusOr<Autopackaging> AutopackagingOf(const FlagEntries& entries) {
  if (entries.contains("container-image-uri")) {
    return FlagError(
        "container-image-uri does not go with local-package-path: the image is built from the "
        "package FROM executor-image-uri; drop container-image-uri (or local-package-path)");
  }
  if (!entries.contains("executor-image-uri")) {
    return FlagError(
        "executor-image-uri is required with local-package-path: the image the package is "
        "installed into, e.g. executor-image-uri=REGISTRY/trainpkg/pytorch-cpu:bookworm");
  }
  bool has_module = entries.contains("python-module");
  bool has_script = entries.contains("script");
  if (has_module == has_script) {
    return FlagError(fmt::format(
        "{} with local-package-path: give python-module=MODULE (run as `python3 -m MODULE`) or "
        "script=PATH (a file in the package)",
        has_module ? "python-module and script both given; exactly one goes"
                   : "exactly one of python-module and script is required"));
  }
  Autopackaging spec;
  spec.executor_image_uri = entries.at("executor-image-uri");
  spec.local_package_path = entries.at("local-package-path");
  if (has_module) {
    spec.python_module = entries.at("python-module");
    if (!IsModuleName(spec.python_module)) {
      return FlagError(fmt::format(
          "python-module={} is not a module name (identifiers joined by '.', e.g. trainer.task)",
          spec.python_module));
    }
  } else {
    spec.script = entries.at("script");
    TP_RETURN_IF_ERROR(CheckInsidePackage("script", spec.script));
  }
  if (auto it = entries.find("requirements"); it != entries.end()) {
    TP_ASSIGN_OR_RETURN(spec.requirements, SplitList(it->first, it->second));
  }
  for (auto [key, list] : {std::pair{"extra-packages", &spec.extra_packages},
                           std::pair{"extra-dirs", &spec.extra_dirs}}) {
    auto it = entries.find(key);
    if (it == entries.end()) continue;
    TP_ASSIGN_OR_RETURN(*list, SplitList(it->first, it->second));
    for (std::string& path : *list) {
      TP_RETURN_IF_ERROR(CheckInsidePackage(key, path));
      // "data/" is "data", so that the image's tag sees the same files.
      while (path.size() > 1 && path.ends_with('/')) path.pop_back();
    }
  }
  if (auto it = entries.find("output-image-uri"); it != entries.end()) {
    spec.output_image_uri = it->second;
  }
  return spec;
}

// A flag's key=value entries; nullopt for a placeholder pool.
absl::StatusOr<std::optional<FlagEntries>> EntriesOf(std::string_view value) {
  if (value.empty()) return std::nullopt;
  if (std::optional<size_t> bad = base::FirstInvalidUtf8(value); bad.has_value()) {
    return FlagError(
        fmt::format("byte {} of the value is not UTF-8 (values must be UTF-8 text)", *bad + 1));
  }
  TP_ASSIGN_OR_RETURN(FlagEntries entries, SplitKeyValues(value));
  TP_RETURN_IF_ERROR(CheckHardware(entries));
  return entries;
}

// One flag of a command: the pool, and its autopackaging when `first`.
absl::StatusOr<WorkerPoolSpec> PoolOf(std::string_view value, bool first, WorkerPoolFlags& flags) {
  TP_ASSIGN_OR_RETURN(std::optional<FlagEntries> entries, EntriesOf(value));
  if (!entries.has_value()) return WorkerPoolSpec{};
  if (first && entries->contains("local-package-path")) {
    TP_ASSIGN_OR_RETURN(flags.autopackaging, AutopackagingOf(*entries));
    TP_ASSIGN_OR_RETURN(WorkerPoolSpec pool, HardwarePool(*entries));
    pool.container_spec.emplace();
    return pool;
  }
  if (entries->contains("local-package-path")) {
    return FlagError("local-package-path is only allowed in the first --worker-pool-spec");
  }
  if (!flags.autopackaging.has_value()) return PlainPool(*entries);
  if (std::string keys = PresentKeys(*entries, kSoftwareKeys); !keys.empty()) {
    return FlagError(fmt::format(
        "{} not allowed here: the first --worker-pool-spec has local-package-path, and every "
        "pool runs the image built from it; give only hardware keys (machine-type, "
        "replica-count, accelerator-*, disk-*)",
        keys));
  }
  TP_ASSIGN_OR_RETURN(WorkerPoolSpec pool, HardwarePool(*entries));
  pool.container_spec.emplace();
  return pool;
}

}  // namespace

absl::StatusOr<WorkerPoolSpec> ParseWorkerPoolSpecFlag(std::string_view value) {
  TP_ASSIGN_OR_RETURN(std::optional<FlagEntries> entries, EntriesOf(value));
  if (!entries.has_value()) return WorkerPoolSpec{};  // a placeholder pool
  if (entries->contains("local-package-path")) {
    return FlagError(
        "local-package-path is autopackaging, which needs the command's flags together (the "
        "first --worker-pool-spec's image runs in every pool)");
  }
  return PlainPool(*entries);
}

absl::StatusOr<WorkerPoolFlags> ParseWorkerPoolSpecFlags(const std::vector<std::string>& values) {
  WorkerPoolFlags flags;
  for (size_t i = 0; i < values.size(); ++i) {
    absl::StatusOr<WorkerPoolSpec> pool = PoolOf(values[i], i == 0, flags);
    if (!pool.ok()) {
      // The message starts with "--worker-pool-spec: "; say which one.
      std::string message(pool.status().message());
      constexpr std::string_view kPrefix = "--worker-pool-spec: ";
      if (message.starts_with(kPrefix)) message.erase(0, kPrefix.size());
      return absl::InvalidArgumentError(fmt::format("--worker-pool-spec #{}: {}", i + 1, message));
    }
    flags.pools.push_back(*std::move(pool));
  }
  return flags;
}

void SetAutopackagedImage(std::vector<WorkerPoolSpec>& pools, const std::string& image_uri) {
  for (WorkerPoolSpec& pool : pools) {
    if (pool.container_spec.has_value() && pool.container_spec->image_uri.empty()) {
      pool.container_spec->image_uri = image_uri;
    }
  }
}

}  // namespace trainpkg::jobspec
