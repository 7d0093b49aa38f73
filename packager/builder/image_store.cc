#include "packager/builder/image_store.h"

#include <algorithm>

#include "base/status_macros.h"
#include "fmt/format.h"
#include "packager/builder/store_lock.h"
#include "registry/reference.h"

namespace trainpkg::packager::builder {
namespace {

// docker.io/library/x -> x, docker.io/u/x -> u/x, as `docker images` shows.
std::string DisplayRepository(const registry::Repository& repo) {
  if (repo.registry != registry::kDockerHubDomain) return repo.Name();
  if (repo.path.rfind("library/", 0) == 0) return repo.path.substr(8);
  return repo.path;
}

}  // namespace

absl::StatusOr<ImageStore> ImageStore::Open(const std::filesystem::path& dir) {
  TP_ASSIGN_OR_RETURN(oci::Layout layout, oci::Layout::Create(dir));
  return ImageStore(std::move(layout));
}

absl::StatusOr<std::string> ImageStore::Tag(const oci::Descriptor& manifest,
                                            std::string_view reference) const {
  TP_ASSIGN_OR_RETURN(registry::Reference ref, registry::ParseReference(reference));
  if (!ref.digest.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("-t {}: a tag cannot carry a digest; use NAME[:TAG]", reference));
  }
  if (ref.tag.empty()) ref.tag = "latest";
  const std::string name = ref.String();
  // index.json is read, changed and rewritten: without the lock two builds
  // tagging at once would lose one of the tags.
  TP_ASSIGN_OR_RETURN(StoreLock lock, StoreLock::Acquire(layout_.root() / "index.lock",
                                                         StoreLock::Mode::kExclusive));
  TP_RETURN_IF_ERROR(layout_.Tag(manifest, name));
  return name;
}

absl::Status ImageStore::Untag(std::string_view name) const {
  TP_ASSIGN_OR_RETURN(StoreLock lock, StoreLock::Acquire(layout_.root() / "index.lock",
                                                         StoreLock::Mode::kExclusive));
  TP_ASSIGN_OR_RETURN(oci::ImageIndex index, layout_.ReadIndex());
  const size_t before = index.manifests.size();
  std::erase_if(index.manifests, [&](const oci::Descriptor& entry) {
    auto tag = entry.annotations.find(std::string(oci::annotations::kRefName));
    return tag != entry.annotations.end() && tag->second == name;
  });
  if (index.manifests.size() == before) {
    return absl::NotFoundError(fmt::format("no such image: {}", name));
  }
  return layout_.WriteIndex(index);
}

absl::StatusOr<std::vector<StoredImage>> ImageStore::Find(std::string_view what) const {
  TP_ASSIGN_OR_RETURN(std::vector<StoredImage> images, List());
  std::string_view hex = what;
  if (hex.starts_with("sha256:")) hex.remove_prefix(7);
  const bool id_like = hex.size() >= 4 && hex.size() <= 64 &&
                       hex.find_first_not_of("0123456789abcdef") == std::string_view::npos;
  if (id_like) {
    std::vector<StoredImage> matched;
    for (const StoredImage& image : images) {
      // The image ID is the config digest, as `docker images` shows it.
      if (image.config_digest.hex().starts_with(hex)) matched.push_back(image);
    }
    for (const StoredImage& image : matched) {
      if (image.config_digest != matched.front().config_digest) {
        return absl::InvalidArgumentError(fmt::format(
            "image ID prefix {} is ambiguous: it names {} and {}; give more digits", what,
            matched.front().config_digest.ToString(), image.config_digest.ToString()));
      }
    }
    if (!matched.empty()) return matched;
  }
  auto ref = registry::ParseReference(what);
  if (ref.ok() && ref->digest.empty()) {
    if (ref->tag.empty()) ref->tag = "latest";
    const std::string name = ref->String();
    for (const StoredImage& image : images) {
      if (image.name == name) return std::vector<StoredImage>{image};
    }
    return absl::NotFoundError(fmt::format("no such image: {}", name));
  }
  if (ref.ok()) {
    return absl::InvalidArgumentError(fmt::format(
        "{}: the local image store holds tags, not digests; use NAME[:TAG] or an image ID", what));
  }
  return absl::NotFoundError(fmt::format("no such image: {}", what));
}

absl::StatusOr<std::vector<StoredImage>> ImageStore::List() const {
  TP_ASSIGN_OR_RETURN(std::vector<oci::LayoutTag> tags, layout_.ListTags());
  std::vector<StoredImage> out;
  for (const oci::LayoutTag& tag : tags) {
    auto ref = registry::ParseReference(tag.tag);
    if (!ref.ok()) continue;  // a tag not written by Tag(): not an image name
    StoredImage image;
    image.repository = DisplayRepository(ref->repository);
    image.tag = ref->tag;
    image.name = tag.tag;
    image.manifest_digest = tag.descriptor.digest;
    TP_ASSIGN_OR_RETURN(oci::LayoutImage read, layout_.ReadImage(tag.tag));
    image.config_digest = read.manifest.config.digest;
    if (read.config) image.created = read.config->created;
    image.size = read.manifest.config.size;
    for (const oci::Descriptor& layer : read.manifest.layers) {
      if (layout_.HasBlob(layer.digest)) image.size += layer.size;
    }
    out.push_back(std::move(image));
  }
  std::sort(out.begin(), out.end(), [](const StoredImage& a, const StoredImage& b) {
    return std::tie(a.repository, a.tag) < std::tie(b.repository, b.tag);
  });
  return out;
}

}  // namespace trainpkg::packager::builder
