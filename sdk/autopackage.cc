#include "sdk/autopackage.h"

#include <fstream>
#include <optional>
#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "base/environment.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "base/temp_dir.h"
#include "fmt/format.h"
#include "packager/builder/build_context.h"
#include "packager/builder/file_digest_cache.h"
#include "packager/dockerfile/dockerignore.h"
#include "packager/unpack/rootfs_cache.h"
#include "registry/auth/docker_config.h"
#include "registry/oci/digest_builder.h"
#include "registry/reference.h"
#include "registry/transfer_result.h"
#include "sdk/image_builder.h"
#include "sdk/internal/autopackage_dockerfile.h"
#include "sdk/internal/derived_image.h"
#include "sdk/internal/image_resolver.h"
#include "sdk/internal/python_package.h"

namespace trainpkg::sdk {
namespace {

namespace fs = std::filesystem;
using packager::builder::BuildContext;
using packager::builder::ContextFile;

constexpr char kTagRepository[] = "localhost/trainpkg-autopackage";
constexpr char kFlag[] = "--worker-pool-spec #1";

std::string Field(std::string_view key, std::string_view value) {
  return fmt::format("{}: {}={}", kFlag, key, value);
}

// What the package must hold, checked before anything is resolved or built.
absl::StatusOr<internal::PackageLayout> CheckPackage(const jobspec::Autopackaging& spec,
                                                     const fs::path& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) {
    return absl::NotFoundError(
        fmt::format("{}: {} {}", Field("local-package-path", spec.local_package_path), dir.string(),
                    fs::exists(dir, ec) ? "is not a directory" : "does not exist"));
  }
  const std::string main = internal::MainFile(spec);
  if (!fs::is_regular_file(dir / main, ec)) {
    const bool module = spec.script.empty();
    return absl::NotFoundError(fmt::format(
        "{}: {} is not a file in the package{}",
        module ? Field("python-module", spec.python_module) : Field("script", spec.script),
        (dir / main).string(),
        module ? " (gcloud's rule: module a.b runs the file a/b.py of local-package-path)" : ""));
  }
  for (const std::string& package : spec.extra_packages) {
    TP_RETURN_IF_ERROR(
        internal::LocalPackagePath((dir / package).string(), Field("extra-packages", package), {})
            .status());
  }
  for (const std::string& extra : spec.extra_dirs) {
    if (!fs::is_directory(dir / extra, ec)) {
      return absl::NotFoundError(fmt::format("{}: {} is not a directory in the package",
                                             Field("extra-dirs", extra), (dir / extra).string()));
    }
  }
  return internal::PackageLayout{
      .has_setup_py = fs::is_regular_file(dir / "setup.py", ec),
      .has_requirements_txt = fs::is_regular_file(dir / "requirements.txt", ec),
  };
}

// The package directory with its .dockerignore applied, as the build sees it.
absl::StatusOr<BuildContext> ScanPackage(const fs::path& dir) {
  std::string ignore_text;
  if (std::ifstream in(dir / ".dockerignore"); in) {
    ignore_text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  TP_ASSIGN_OR_RETURN(packager::dockerfile::DockerIgnore ignore,
                      packager::dockerfile::DockerIgnore::Parse(ignore_text));
  return BuildContext::Scan(dir, ignore);
}

// The store tag: the executor, the Dockerfile and what its COPYs take.
absl::StatusOr<std::string> ImageTag(const oci::Digest& executor, const std::string& body,
                                     const BuildContext& context,
                                     const std::vector<std::string>& copied) {
  oci::DigestBuilder key;
  key.Update(absl::StrCat("trainpkg autopackage v1\n", executor.ToString(), "\n", body));
  // Only what the COPYs take, after .dockerignore: editing any other file of
  // the package reuses the image; a changed mode or link target does not.
  std::set<std::string> seen;
  std::vector<const ContextFile*> files;
  for (const std::string& path : copied) {
    const std::string rel = fs::path(path).lexically_normal().generic_string();
    if (const ContextFile* file = context.Find(rel); file != nullptr) files.push_back(file);
    std::vector<const ContextFile*> beneath = context.Beneath(rel.empty() ? "." : rel);
    files.insert(files.end(), beneath.begin(), beneath.end());
  }
  packager::builder::FileDigestCache digests = packager::builder::FileDigestCache::Load("");
  for (const ContextFile* file : files) {
    if (!seen.insert(file->rel).second) continue;
    std::string content;
    if (file->type == ContextFile::Type::kFile) {
      TP_ASSIGN_OR_RETURN(content, digests.Digest(context.root() / file->rel, *file));
    } else if (file->type == ContextFile::Type::kSymlink) {
      std::error_code ec;
      content = fs::read_symlink(context.root() / file->rel, ec).string();
    }
    key.Update(fmt::format("{}\n{}\n{:o}\n{}\n", file->rel, static_cast<int>(file->type),
                           file->mode & 07777, content));
  }
  return absl::StrCat(kTagRepository, ":", key.Finish().hex());
}

// The digest of the manifest pushed.
absl::StatusOr<std::string> Push(const std::string& tag, const std::string& target_text,
                                 const AutopackageOptions& options) {
  TP_ASSIGN_OR_RETURN(registry::Reference target, registry::ParseReference(target_text));
  base::MapEnvironment environment(options.environment);
  std::shared_ptr<registry::RegistryClient> client = options.registry;
  if (client == nullptr) {
    registry::RegistryClientOptions client_options;
    client_options.keychain = std::make_shared<registry::DockerKeychain>(environment);
    client = std::make_shared<registry::RegistryClient>(std::move(client_options));
  }
  TP_ASSIGN_OR_RETURN(registry::TransferResult result,
                      PushStoredImage(environment, tag, *client, target, StoredPushOptions{}));
  return result.root.digest.ToString();
}

}  // namespace

absl::StatusOr<AutopackagedImage> Autopackage(const jobspec::Autopackaging& spec,
                                              const AutopackageOptions& options) {
  auto log = [&options](std::string_view line) {
    if (options.log) options.log(line);
  };
  const fs::path dir = (options.cwd / spec.local_package_path).lexically_normal();
  TP_ASSIGN_OR_RETURN(internal::PackageLayout layout, CheckPackage(spec, dir));
  // Checked before the build, so a typo in the push target costs no build.
  if (!spec.output_image_uri.empty()) {
    if (absl::Status valid = registry::ParseReference(spec.output_image_uri).status();
        !valid.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("{}: {}", Field("output-image-uri", spec.output_image_uri),
                      std::string(valid.message())));
    }
  }
  internal::ImageResolver resolver(options.home,
                                   internal::RegistryImagePuller(options.environment));
  packager::unpack::RootfsCache rootfs(options.home / "rootfs");
  const std::string executor_field = Field("executor-image-uri", spec.executor_image_uri);
  absl::StatusOr<jobspec::ImageUri> executor_image =
      jobspec::ImageUri::Parse(spec.executor_image_uri);
  if (!executor_image.ok()) return base::WithContext(executor_image.status(), executor_field);
  TP_ASSIGN_OR_RETURN(
      internal::ResolvedImage executor,
      internal::ResolvePythonExecutor(resolver, rootfs, *executor_image, executor_field));
  const std::string body = internal::AutopackageDockerfileBody(spec, layout);
  absl::StatusOr<BuildContext> context = ScanPackage(dir);
  if (!context.ok()) {
    return base::WithContext(context.status(),
                             Field("local-package-path", spec.local_package_path));
  }
  TP_ASSIGN_OR_RETURN(std::string tag, ImageTag(executor.image.descriptor.digest, body, *context,
                                                internal::CopiedPaths(spec, layout)));
  AutopackagedImage image{.image_uri = tag, .store_tag = tag, .built = false};
  if (internal::StoreHasImage(options.home, tag)) {
    log(fmt::format("Using {}: built from {} before, with the same executor and files", tag,
                    dir.string()));
  } else {
    log(fmt::format("Building {} from {} FROM {}", tag, dir.string(), spec.executor_image_uri));
    TP_ASSIGN_OR_RETURN(packager::builder::StoreLock gc_lock,
                        internal::HoldStoreForBuild(options.home));
    const fs::path staging = options.home / "build-cache" / "tmp";
    TP_ASSIGN_OR_RETURN(base::TempDir scratch,
                        base::TempDir::Create("trainpkg-autopackage", staging));
    const fs::path dockerfile = scratch.path() / "Dockerfile";
    {
      std::ofstream out(dockerfile);
      out << "FROM " << executor.layout_reference << "\n" << body;
      if (!out.flush()) {
        return absl::InternalError(fmt::format("writing {}", dockerfile.string()));
      }
    }
    absl::Status built = internal::BuildDerivedImage(internal::DerivedImageBuild{
        .home = options.home,
        .context_dir = dir,
        .dockerfile = dockerfile,
        .tag = tag,
        .log = options.log,
    });
    if (!built.ok()) {
      return base::WithContext(built,
                               fmt::format("{}: building the image",
                                           Field("local-package-path", spec.local_package_path)));
    }
    image.built = true;
  }
  if (!spec.output_image_uri.empty()) {
    log(fmt::format("Pushing {} to {}", tag, spec.output_image_uri));
    absl::StatusOr<std::string> pushed = Push(tag, spec.output_image_uri, options);
    if (!pushed.ok()) {
      return base::WithContext(
          pushed.status(),
          fmt::format("{}: pushing the image", Field("output-image-uri", spec.output_image_uri)));
    }
    log(fmt::format("Pushed {}@{}", spec.output_image_uri, *pushed));
    image.image_uri = spec.output_image_uri;
  }
  return image;
}

}  // namespace trainpkg::sdk
