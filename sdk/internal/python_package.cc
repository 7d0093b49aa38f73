#include "sdk/internal/python_package.h"

#include <fstream>
#include <string>

#include "fmt/format.h"

namespace trainpkg::sdk::internal {
namespace {

constexpr std::string_view kFileScheme = "file://";
constexpr std::string_view kGcsScheme = "gs://";
constexpr std::string_view kGcsMount = "/gcs/";

struct PackageFormat {
  std::string_view suffix;
  std::string_view magic;
  std::string_view what;
};

constexpr PackageFormat kFormats[] = {
    {".tar.gz", std::string_view("\x1f\x8b", 2), "an sdist (*.tar.gz) must be a gzip stream"},
    {".whl", std::string_view("PK\x03\x04", 4), "a wheel (*.whl) must be a zip archive"},
};

absl::StatusOr<std::filesystem::path> Located(std::string_view uri, std::string_view field,
                                              const std::filesystem::path& cwd) {
  if (uri.starts_with(kFileScheme)) {
    std::string_view path = uri.substr(kFileScheme.size());
    if (!path.starts_with('/')) {
      return absl::InvalidArgumentError(fmt::format(
          "{}: \"{}\" is not a file URI with an absolute path (file:///path/to/package.whl)", field,
          uri));
    }
    return std::filesystem::path(path);
  }
  if (uri.starts_with(kGcsScheme)) {
    // Vertex mounts Cloud Storage at /gcs/ in its containers; where the same
    // mount exists here, the package is read through it.
    std::filesystem::path mounted =
        std::string(kGcsMount) + std::string(uri.substr(kGcsScheme.size()));
    std::error_code ec;
    if (!std::filesystem::exists(mounted, ec)) {
      return absl::NotFoundError(fmt::format(
          "{}: \"{}\" is read here as {} (where Vertex mounts Cloud Storage), which does not "
          "exist; copy the package to this machine and give its path or a file:// URI",
          field, uri, mounted.string()));
    }
    return mounted;
  }
  if (uri.find("://") != std::string_view::npos) {
    return absl::InvalidArgumentError(
        fmt::format("{}: \"{}\": the local backend reads packages from paths, file:// and gs:// "
                    "(as /gcs/...) only",
                    field, uri));
  }
  if (uri.empty()) return absl::InvalidArgumentError(fmt::format("{}: empty package URI", field));
  return (cwd / std::string(uri)).lexically_normal();
}

}  // namespace

absl::StatusOr<std::filesystem::path> LocalPackagePath(std::string_view uri, std::string_view field,
                                                       const std::filesystem::path& cwd) {
  absl::StatusOr<std::filesystem::path> path = Located(uri, field, cwd);
  if (!path.ok()) return path.status();
  std::error_code ec;
  std::filesystem::file_status status = std::filesystem::status(*path, ec);
  if (!std::filesystem::exists(status)) {
    return absl::NotFoundError(fmt::format("{}: {} does not exist", field, path->string()));
  }
  if (!std::filesystem::is_regular_file(status)) {
    return absl::InvalidArgumentError(
        fmt::format("{}: {} is not a regular file; give an sdist (*.tar.gz) or a wheel (*.whl)",
                    field, path->string()));
  }
  const std::string name = path->filename().string();
  for (const PackageFormat& format : kFormats) {
    if (!name.ends_with(format.suffix)) continue;
    std::string head(format.magic.size(), '\0');
    std::ifstream in(*path, std::ios::binary);
    in.read(head.data(), static_cast<std::streamsize>(head.size()));
    // A saved HTML error page, or any file merely named so, fails here by
    // name rather than deep inside pip.
    if (!in || head != format.magic) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {} is not a Python package: {}", field, path->string(), format.what));
    }
    return path;
  }
  return absl::InvalidArgumentError(fmt::format(
      "{}: {} is not a Python package: pip installs an sdist (*.tar.gz) or a wheel (*.whl)", field,
      path->string()));
}

}  // namespace trainpkg::sdk::internal
