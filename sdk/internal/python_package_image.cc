#include "sdk/internal/python_package_image.h"

#include <fstream>
#include <optional>
#include <set>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "base/check.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "base/temp_dir.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "packager/unpack/rootfs_cache.h"
#include "registry/oci/digest_builder.h"
#include "sdk/internal/derived_image.h"
#include "sdk/internal/image_resolver.h"
#include "sdk/internal/python_package.h"

namespace trainpkg::sdk::internal {
namespace {

constexpr char kTagRepository[] = "localhost/trainpkg-python-package";
constexpr char kPackageDir[] = "/opt/trainpkg/python-packages/";
// Build args (RUN's environment, not the image's): Debian's Python is
// "externally managed" (PEP 668), which pip >= 23 refuses to install into
// without this; the rest keep pip's output to what matters.
constexpr char kPipArgs[] =
    "ARG PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore "
    "PIP_DISABLE_PIP_VERSION_CHECK=1\n";
constexpr std::string_view kInstallCommand[] = {"python3", "-m", "pip", "install",
                                                "--no-cache-dir"};

std::string PoolField(int pool) { return absl::StrCat("jobSpec.workerPoolSpecs[", pool, "]"); }

absl::StatusOr<oci::Digest> FileDigest(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return absl::NotFoundError(fmt::format("reading {}", path.string()));
  oci::DigestBuilder builder;
  std::string buffer(1 << 16, '\0');
  while (in) {
    in.read(buffer.data(), static_cast<std::streamsize>(buffer.size()));
    builder.Update(std::string_view(buffer.data(), static_cast<size_t>(in.gcount())));
  }
  if (in.bad()) return absl::DataLossError(fmt::format("reading {}", path.string()));
  return builder.Finish();
}

struct Package {
  std::filesystem::path path;
  oci::Digest digest;
};

// The Dockerfile that installs `packages` (copied to packages/ in its
// context) into the image `from`.
std::string InstallDockerfile(std::string_view from, const std::vector<Package>& packages) {
  nlohmann::json run = nlohmann::json::array();
  for (std::string_view word : kInstallCommand) run.push_back(word);
  for (const Package& package : packages) {
    run.push_back(kPackageDir + package.path.filename().string());
  }
  return fmt::format("FROM {}\n{}COPY packages/ {}\nRUN {}\n", from, kPipArgs, kPackageDir,
                     run.dump());
}

// The store tag of the image with `packages` installed into `executor`.
std::string ImageTag(const oci::Digest& executor, const std::vector<Package>& packages) {
  // Named by content: the same executor, pip settings and package bytes find
  // the image already built; a changed package file gets a new one.
  oci::DigestBuilder key;
  key.Update("trainpkg python package image v1\n");
  key.Update(executor.ToString());
  key.Update("\n");
  key.Update(kPipArgs);
  for (std::string_view word : kInstallCommand) key.Update(fmt::format("{}\n", word));
  for (const Package& package : packages) {
    key.Update(
        absl::StrCat(package.path.filename().string(), "\n", package.digest.ToString(), "\n"));
  }
  return absl::StrCat(kTagRepository, ":", key.Finish().hex());
}

// The store tag ImageTag made, as the image the replicas run.
jobspec::ImageUri TagImage(const std::string& tag) {
  absl::StatusOr<jobspec::ImageUri> image = jobspec::ImageUri::Parse(tag);
  TP_CHECK(image.ok(), "store tag {}: {}", tag, image.status().ToString());
  return *std::move(image);
}

class ImagePreparer {
 public:
  explicit ImagePreparer(const PythonPackageImageOptions& options)
      : options_(options),
        resolver_(options.home, RegistryImagePuller(options.environment)),
        rootfs_(options.home / "rootfs") {}

  // The image `plan` runs.
  absl::StatusOr<jobspec::ImageUri> ImageFor(const ReplicaPlan& plan) {
    TP_ASSIGN_OR_RETURN(ResolvedImage executor,
                        ResolvePythonExecutor(resolver_, rootfs_, *plan.image, plan.program_field));
    if (plan.python_packages->empty()) return *plan.image;
    std::vector<Package> packages;
    std::set<std::string> names;
    for (size_t j = 0; j < plan.python_packages->size(); ++j) {
      const std::string field =
          absl::StrCat(PoolField(plan.ref.pool), ".pythonPackageSpec.packageUris[", j, "]");
      TP_ASSIGN_OR_RETURN(std::filesystem::path path,
                          LocalPackagePath((*plan.python_packages)[j], field, options_.cwd));
      // Every package lands in one directory under its file name.
      if (!names.insert(path.filename().string()).second) {
        return absl::InvalidArgumentError(fmt::format(
            "{}: another package of the pool is also named {}; pip installs each file once", field,
            path.filename().string()));
      }
      absl::StatusOr<oci::Digest> digest = FileDigest(path);
      if (!digest.ok()) return base::WithContext(digest.status(), field);
      packages.push_back(Package{path, *digest});
    }
    const std::string tag = ImageTag(executor.image.descriptor.digest, packages);
    if (StoreHasImage(options_.home, tag)) {
      Log(fmt::format("Using {}: the packages of {} are installed in it", tag,
                      PoolField(plan.ref.pool)));
      return TagImage(tag);
    }
    Log(fmt::format("Installing the Python packages of {} into {} as {}", PoolField(plan.ref.pool),
                    plan.image->ToString(), tag));
    absl::Status built = Build(executor.layout_reference, packages, tag);
    if (!built.ok()) {
      return base::WithContext(
          built, fmt::format("{}.pythonPackageSpec: installing the packages into \"{}\"",
                             PoolField(plan.ref.pool), plan.image->ToString()));
    }
    return TagImage(tag);
  }

 private:
  absl::Status Build(std::string_view from, const std::vector<Package>& packages,
                     const std::string& tag) {
    TP_ASSIGN_OR_RETURN(packager::builder::StoreLock gc_lock, HoldStoreForBuild(options_.home));
    const std::filesystem::path staging = options_.home / "build-cache" / "tmp";
    std::error_code ec;
    std::filesystem::create_directories(staging, ec);
    if (ec)
      return absl::InternalError(fmt::format("creating {}: {}", staging.string(), ec.message()));
    TP_ASSIGN_OR_RETURN(base::TempDir context, base::TempDir::Create("trainpkg-python", staging));
    std::filesystem::create_directory(context.path() / "packages", ec);
    for (const Package& package : packages) {
      if (ec) break;
      std::filesystem::copy_file(package.path,
                                 context.path() / "packages" / package.path.filename(), ec);
    }
    if (ec) {
      return absl::InternalError(
          fmt::format("copying the packages into {}: {}", context.path().string(), ec.message()));
    }
    {
      std::ofstream dockerfile(context.path() / "Dockerfile");
      dockerfile << InstallDockerfile(from, packages);
      if (!dockerfile.flush()) {
        return absl::InternalError(fmt::format("writing {}", context.path().string()));
      }
    }
    return BuildDerivedImage(DerivedImageBuild{
        .home = options_.home,
        .context_dir = context.path(),
        .dockerfile = context.path() / "Dockerfile",
        .tag = tag,
        .log = options_.log,
    });
  }

  void Log(std::string_view line) const {
    if (options_.log) options_.log(line);
  }

  const PythonPackageImageOptions& options_;
  ImageResolver resolver_;
  packager::unpack::RootfsCache rootfs_;
};

}  // namespace

absl::Status PreparePythonPackageImages(std::vector<ReplicaPlan>& plans,
                                        const PythonPackageImageOptions& options) {
  ImagePreparer preparer(options);
  // (executor, packages) -> image, so that each is prepared once per job.
  std::map<std::pair<std::string, std::vector<std::string>>, jobspec::ImageUri> images;
  for (ReplicaPlan& plan : plans) {
    if (!plan.python_packages.has_value()) continue;
    auto key = std::make_pair(plan.image->ToString(), *plan.python_packages);
    auto found = images.find(key);
    if (found == images.end()) {
      TP_ASSIGN_OR_RETURN(jobspec::ImageUri image, preparer.ImageFor(plan));
      found = images.emplace(std::move(key), std::move(image)).first;
    }
    plan.image = found->second;
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::sdk::internal
