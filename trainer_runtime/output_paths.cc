#include "trainer_runtime/output_paths.h"

#include <string>
#include <system_error>

#include "base/file_util.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::runtime {
namespace {

constexpr std::string_view kGcsFuseRoot = "/gcs/";

// Drops trailing '/' except for the root itself.
std::filesystem::path WithoutTrailingSlash(std::string_view path) {
  while (path.size() > 1 && path.ends_with('/')) path.remove_suffix(1);
  return std::filesystem::path(path);
}

absl::Status InvalidUri(std::string_view uri, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("output location \"{}\": {}", uri, what));
}

}  // namespace

absl::StatusOr<std::filesystem::path> LocalPathForUri(std::string_view uri) {
  if (uri.empty()) return InvalidUri(uri, "empty");
  if (uri.starts_with("gs://")) {
    std::string_view rest = uri.substr(5);
    if (rest.empty() || rest.starts_with('/')) return InvalidUri(uri, "no bucket");
    return WithoutTrailingSlash(fmt::format("{}{}", kGcsFuseRoot, rest));
  }
  if (uri.starts_with("file://")) {
    std::string_view rest = uri.substr(7);
    if (rest.starts_with("localhost/")) rest.remove_prefix(9);
    if (!rest.starts_with('/')) {
      return InvalidUri(uri, "a file:// URI needs an absolute path on this host (file:///path)");
    }
    return WithoutTrailingSlash(rest);
  }
  if (size_t scheme = uri.find("://"); scheme != std::string_view::npos) {
    return InvalidUri(uri, fmt::format("unsupported scheme \"{}\" (use a path, file:// or gs://)",
                                    uri.substr(0, scheme)));
  }
  return WithoutTrailingSlash(uri);
}

ModelWriteOptions ModelWriteOptionsFromEnvironment(const base::Environment& env) {
  ModelWriteOptions options;
  options.keep_worker_temp = env.Get("TRAINPKG_KEEP_WORKER_TEMP") == "1";
  return options;
}

absl::StatusOr<ModelWriteDir> ModelWriteDir::Create(std::string_view model_dir,
                                                    const ClusterInfo& info,
                                                    ModelWriteOptions options) {
  if (!info.in_collective()) {
    return absl::FailedPreconditionError(
        fmt::format("{} {} is outside the collective and does not save the model", info.task_type,
                    info.task_index));
  }
  TP_ASSIGN_OR_RETURN(std::filesystem::path model_path, LocalPathForUri(model_dir));
  bool worker_temp = !info.is_chief;
  std::filesystem::path path =
      worker_temp ? model_path / fmt::format("workertemp_{}", info.task_index) : model_path;
  std::error_code ec;
  std::filesystem::create_directories(path, ec);
  if (ec) {
    return base::ErrnoToStatus(ec.value(),
                               fmt::format("creating model directory {}", path.string()));
  }
  return ModelWriteDir(std::move(path), worker_temp, options.keep_worker_temp);
}

absl::Status ModelWriteDir::Finish() {
  if (!worker_temp_ || keep_) return absl::OkStatus();
  std::error_code ec;
  std::filesystem::remove_all(path_, ec);
  if (ec) {
    return base::ErrnoToStatus(ec.value(),
                               fmt::format("removing worker temp directory {}", path_.string()));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::runtime
