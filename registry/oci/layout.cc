#include "registry/oci/layout.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <system_error>
#include <utility>

#include "base/file_util.h"
#include "base/json_object_reader.h"
#include "base/json_parse.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "registry/oci/annotations.h"
#include "registry/oci/digest_builder.h"
#include "registry/oci/layout_reference.h"
#include "registry/oci/media_types.h"

namespace trainpkg::oci {
namespace {

constexpr std::string_view kLayoutFile = "oci-layout";
constexpr std::string_view kIndexFile = "index.json";
constexpr std::string_view kLayoutHeader = R"({"imageLayoutVersion":"1.0.0"})";

absl::Status CreateDirectories(const std::filesystem::path& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("creating {}", dir.string()));
  return absl::OkStatus();
}

std::string TagOf(const Descriptor& descriptor) {
  auto it = descriptor.annotations.find(std::string(annotations::kRefName));
  return it == descriptor.annotations.end() ? std::string() : it->second;
}

absl::Status CheckContent(const Digest& digest, std::optional<int64_t> size,
                          std::string_view content, const std::filesystem::path& path) {
  if (size.has_value() && *size != static_cast<int64_t>(content.size())) {
    return absl::DataLossError(fmt::format("blob {} at {} has {} bytes, its descriptor says {}",
                                           digest.ToString(), path.string(), content.size(),
                                           *size));
  }
  Digest actual = ComputeDigest(content, digest.algorithm());
  if (actual != digest) {
    return absl::DataLossError(fmt::format("blob {} at {} is corrupted: its content hashes to {}",
                                           digest.ToString(), path.string(), actual.ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<Layout> Layout::Create(const std::filesystem::path& root) {
  TP_RETURN_IF_ERROR(CreateDirectories(root / "blobs"));
  std::error_code ec;
  if (!std::filesystem::exists(root / kLayoutFile, ec)) {
    TP_RETURN_IF_ERROR(base::WriteFileAtomic(root / kLayoutFile, kLayoutHeader));
  }
  TP_ASSIGN_OR_RETURN(Layout layout, Open(root));
  if (!std::filesystem::exists(root / kIndexFile, ec)) {
    TP_RETURN_IF_ERROR(layout.WriteIndex(ImageIndex{}));
  }
  return layout;
}

absl::StatusOr<Layout> Layout::Open(const std::filesystem::path& root) {
  std::filesystem::path header_path = root / kLayoutFile;
  absl::StatusOr<std::string> header = base::ReadFile(header_path);
  if (!header.ok()) {
    if (absl::IsNotFound(header.status())) {
      return absl::NotFoundError(
          fmt::format("{} is not an OCI image layout (no {} file)", root.string(), kLayoutFile));
    }
    return header.status();
  }
  absl::StatusOr<nlohmann::json> json = base::ParseJson(*header);
  std::string version;
  if (json.ok()) {
    absl::StatusOr<base::JsonObjectReader> reader =
        base::JsonObjectReader::Create(*json, "", base::kPlainJson);
    absl::Status read =
        reader.ok() ? reader->ReadString("imageLayoutVersion", &version) : reader.status();
    if (!read.ok()) json = read;
  }
  if (!json.ok()) return base::WithContext(json.status(), header_path.string());
  if (version.substr(0, 2) != "1.") {
    return absl::FailedPreconditionError(
        fmt::format("{}: unsupported imageLayoutVersion \"{}\" (expected 1.0.0)",
                    header_path.string(), version));
  }
  return Layout(root);
}

std::filesystem::path Layout::BlobPath(const Digest& digest) const {
  if (digest.empty()) {
    std::fprintf(stderr, "trainpkg: Layout::BlobPath of an empty digest\n");
    std::abort();
  }
  return root_ / "blobs" / std::string(digest.algorithm_name()) / digest.hex();
}

bool Layout::HasBlob(const Digest& digest) const {
  std::error_code ec;
  return !digest.empty() && std::filesystem::is_regular_file(BlobPath(digest), ec);
}

absl::StatusOr<Descriptor> Layout::WriteBlob(std::string_view content,
                                             std::string_view media_type) const {
  Descriptor descriptor = DescribeContent(content, media_type);
  TP_RETURN_IF_ERROR(WriteBlob(descriptor, content));
  return descriptor;
}

absl::Status Layout::WriteBlob(const Descriptor& expected, std::string_view content) const {
  if (expected.digest.empty()) return absl::InvalidArgumentError("WriteBlob: the digest is empty");
  std::filesystem::path path = BlobPath(expected.digest);
  TP_RETURN_IF_ERROR(CheckContent(expected.digest, expected.size, content, path));
  // Content-addressed: a blob present under its digest holds these bytes
  // already, so it is not written again.
  if (HasBlob(expected.digest)) return absl::OkStatus();
  return base::WriteFileAtomic(path, content);
}

absl::StatusOr<BlobWriter> Layout::NewBlobWriter(DigestAlgorithm algorithm) const {
  std::filesystem::path dir = root_ / "blobs" / std::string(DigestAlgorithmName(algorithm));
  TP_RETURN_IF_ERROR(CreateDirectories(dir));
  std::string temp = (dir / ".tmp-blob-XXXXXX").string();
  // Beside the final name (same directory, same file system), so Commit's
  // rename is atomic.
  int fd = ::mkostemp(temp.data(), O_CLOEXEC);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("creating a file in {}", dir.string()));
  if (::fchmod(fd, 0644) != 0) {
    int err = errno;
    ::close(fd);
    ::unlink(temp.c_str());
    return base::ErrnoToStatus(err, fmt::format("chmod {}", temp));
  }
  return BlobWriter(dir, temp, fd, algorithm);
}

absl::StatusOr<std::string> Layout::ReadBlob(const Digest& digest) const {
  return ReadVerified(digest, std::nullopt);
}

absl::StatusOr<std::string> Layout::ReadBlob(const Descriptor& descriptor) const {
  return ReadVerified(descriptor.digest, descriptor.size);
}

absl::StatusOr<std::string> Layout::ReadVerified(const Digest& digest,
                                                 std::optional<int64_t> size) const {
  if (digest.empty()) return absl::InvalidArgumentError("ReadBlob: the digest is empty");
  std::filesystem::path path = BlobPath(digest);
  absl::StatusOr<std::string> content = base::ReadFile(path);
  if (!content.ok()) {
    if (absl::IsNotFound(content.status())) {
      return absl::NotFoundError(
          fmt::format("blob {} is not in the layout {}", digest.ToString(), root_.string()));
    }
    return content.status();
  }
  TP_RETURN_IF_ERROR(CheckContent(digest, size, *content, path));
  return content;
}

absl::StatusOr<ImageIndex> Layout::ReadIndex() const {
  std::filesystem::path path = root_ / kIndexFile;
  TP_ASSIGN_OR_RETURN(std::string bytes, base::ReadFile(path));
  absl::StatusOr<ImageIndex> index = ParseImageIndex(bytes);
  if (!index.ok()) return base::WithContext(index.status(), path.string());
  return index;
}

absl::Status Layout::WriteIndex(const ImageIndex& index) const {
  return base::WriteFileAtomic(root_ / kIndexFile, SerializeImageIndex(index));
}

absl::StatusOr<std::vector<LayoutTag>> Layout::ListTags() const {
  TP_ASSIGN_OR_RETURN(ImageIndex index, ReadIndex());
  std::vector<LayoutTag> tags;
  for (const Descriptor& entry : index.manifests) {
    std::string tag = TagOf(entry);
    if (!tag.empty()) tags.push_back(LayoutTag{std::move(tag), entry});
  }
  return tags;
}

absl::StatusOr<Descriptor> Layout::Resolve(std::string_view tag) const {
  TP_ASSIGN_OR_RETURN(ImageIndex index, ReadIndex());
  std::vector<std::string> tags;
  for (const Descriptor& entry : index.manifests) {
    std::string entry_tag = TagOf(entry);
    if (!tag.empty() && entry_tag == tag) return entry;
    tags.push_back(entry_tag.empty() ? entry.digest.ToString() : entry_tag);
  }
  std::string listing =
      tags.empty() ? "it holds no images" : fmt::format("it has: {}", fmt::join(tags, ", "));
  if (!tag.empty()) {
    return absl::NotFoundError(
        fmt::format("no image tagged \"{}\" in the layout {} ({})", tag, root_.string(), listing));
  }
  if (index.manifests.size() == 1) return index.manifests.front();
  if (index.manifests.empty()) {
    return absl::NotFoundError(fmt::format("the layout {} holds no images", root_.string()));
  }
  return absl::InvalidArgumentError(
      fmt::format("the layout {} holds several images; name one with oci:DIR:TAG ({})",
                  root_.string(), listing));
}

absl::Status Layout::Tag(const Descriptor& descriptor, std::string_view tag) const {
  TP_RETURN_IF_ERROR(ValidateRefName(tag));
  TP_RETURN_IF_ERROR(ValidateDescriptor(descriptor, "descriptor"));
  if (!IsManifestMediaType(descriptor.media_type) && !IsIndexMediaType(descriptor.media_type)) {
    return absl::InvalidArgumentError(
        fmt::format("cannot tag {} ({}): only manifests and indexes can be tagged",
                    descriptor.digest.ToString(), descriptor.media_type));
  }
  TP_ASSIGN_OR_RETURN(ImageIndex index, ReadIndex());
  Descriptor tagged = descriptor;
  tagged.annotations[std::string(annotations::kRefName)] = std::string(tag);
  // Already so (an unchanged rebuild): index.json is not rewritten.
  if (std::find(index.manifests.begin(), index.manifests.end(), tagged) != index.manifests.end()) {
    return absl::OkStatus();
  }
  // A tag names one image: the entry it named before goes.
  std::erase_if(index.manifests, [tag](const Descriptor& entry) { return TagOf(entry) == tag; });
  index.manifests.push_back(std::move(tagged));
  return WriteIndex(index);
}

absl::StatusOr<std::vector<Descriptor>> Layout::MissingBlobs(const Descriptor& root) const {
  std::vector<Descriptor> missing;
  if (!HasBlob(root.digest)) {
    missing.push_back(root);
    return missing;
  }
  if (IsIndexMediaType(root.media_type)) {
    TP_ASSIGN_OR_RETURN(std::string bytes, ReadBlob(root));
    TP_ASSIGN_OR_RETURN(ImageIndex index, ParseImageIndex(bytes));
    for (const Descriptor& entry : index.manifests) {
      TP_ASSIGN_OR_RETURN(std::vector<Descriptor> below, MissingBlobs(entry));
      missing.insert(missing.end(), below.begin(), below.end());
    }
  } else if (IsManifestMediaType(root.media_type)) {
    TP_ASSIGN_OR_RETURN(std::string bytes, ReadBlob(root));
    TP_ASSIGN_OR_RETURN(ImageManifest manifest, ParseImageManifest(bytes));
    if (!HasBlob(manifest.config.digest)) missing.push_back(manifest.config);
    for (const Descriptor& layer : manifest.layers) {
      if (!HasBlob(layer.digest)) missing.push_back(layer);
    }
  }
  return missing;
}

absl::StatusOr<LayoutImage> Layout::ReadImage(std::string_view tag,
                                              const std::optional<Platform>& platform) const {
  std::string context = FormatLayoutReference(LayoutReference{root_, std::string(tag)});
  LayoutImage image;
  absl::StatusOr<Descriptor> resolved = Resolve(tag);
  if (!resolved.ok()) return resolved.status();
  image.descriptor = *std::move(resolved);
  while (IsIndexMediaType(image.descriptor.media_type)) {
    absl::StatusOr<std::string> bytes = ReadBlob(image.descriptor);
    absl::StatusOr<ImageIndex> index =
        bytes.ok() ? ParseImageIndex(*bytes) : absl::StatusOr<ImageIndex>(bytes.status());
    if (!index.ok()) return base::WithContext(index.status(), context);
    if (!platform.has_value()) {
      return absl::InvalidArgumentError(fmt::format("{}: {} is an image index; choose a platform",
                                                    context, image.descriptor.digest.ToString()));
    }
    absl::StatusOr<Descriptor> selected = SelectManifest(*index, *platform);
    if (!selected.ok()) return base::WithContext(selected.status(), context);
    image.descriptor = *std::move(selected);
  }
  absl::StatusOr<std::string> bytes = ReadBlob(image.descriptor);
  if (!bytes.ok()) return base::WithContext(bytes.status(), context);
  image.manifest_bytes = *std::move(bytes);
  absl::StatusOr<ImageManifest> manifest = ParseImageManifest(image.manifest_bytes);
  if (!manifest.ok()) return base::WithContext(manifest.status(), context);
  image.manifest = *std::move(manifest);
  if (!HasBlob(image.manifest.config.digest)) {
    image.missing_blobs.push_back(image.manifest.config);
  } else if (IsImageConfigMediaType(image.manifest.config.media_type)) {
    absl::StatusOr<std::string> config_bytes = ReadBlob(image.manifest.config);
    absl::StatusOr<ImageConfig> config = config_bytes.ok()
                                             ? ParseImageConfig(*config_bytes)
                                             : absl::StatusOr<ImageConfig>(config_bytes.status());
    if (!config.ok()) return base::WithContext(config.status(), context);
    image.config = *std::move(config);
  }
  for (const Descriptor& layer : image.manifest.layers) {
    if (!HasBlob(layer.digest)) image.missing_blobs.push_back(layer);
  }
  return image;
}

}  // namespace trainpkg::oci
