#include "packager/builder/file_digest_cache.h"

#include <fcntl.h>
#include <unistd.h>

#include <ctime>

#include "base/file_util.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "registry/oci/digest_builder.h"

namespace trainpkg::packager::builder {
namespace {

constexpr int64_t kRacyWindowSeconds = 2;

std::string StatKey(const ContextFile& f) {
  return fmt::format("{}:{}.{}:{}:{}", f.size, f.mtime_sec, f.mtime_nsec, f.inode, f.device);
}

}  // namespace

FileDigestCache FileDigestCache::Load(std::filesystem::path file) {
  FileDigestCache cache;
  cache.file_ = std::move(file);
  if (cache.file_.empty()) return cache;
  auto text = base::ReadFile(cache.file_);
  if (!text.ok()) return cache;
  nlohmann::json json = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  if (!json.is_object()) return cache;
  for (const auto& [path, value] : json.items()) {
    if (!value.is_array() || value.size() != 2 || !value[0].is_string() || !value[1].is_string()) {
      continue;
    }
    cache.entries_[path] = Entry{value[0].get<std::string>(), value[1].get<std::string>()};
  }
  return cache;
}

absl::StatusOr<std::string> FileDigestCache::Digest(const std::filesystem::path& path,
                                                    const ContextFile& stat) {
  const std::string key = StatKey(stat);
  auto it = entries_.find(path.string());
  if (it != entries_.end() && it->second.key == key) return it->second.digest;

  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return base::ErrnoToStatus(errno, fmt::format("reading {}", path.string()));
  oci::DigestBuilder builder(oci::DigestAlgorithm::kSha256);
  std::string buffer(1 << 16, '\0');
  while (true) {
    ssize_t n = ::read(fd, buffer.data(), buffer.size());
    if (n < 0) {
      int err = errno;
      ::close(fd);
      return base::ErrnoToStatus(err, fmt::format("reading {}", path.string()));
    }
    if (n == 0) break;
    builder.Update(std::string_view(buffer.data(), static_cast<size_t>(n)));
  }
  ::close(fd);
  ++files_hashed_;
  std::string digest = builder.Finish().hex();
  if (std::time(nullptr) - stat.mtime_sec >= kRacyWindowSeconds) {
    entries_[path.string()] = Entry{key, digest};
    dirty_ = true;
  }
  return digest;
}

absl::Status FileDigestCache::Save() const {
  if (file_.empty() || !dirty_) return absl::OkStatus();
  nlohmann::json json = nlohmann::json::object();
  for (const auto& [path, entry] : entries_) json[path] = {entry.key, entry.digest};
  std::error_code ec;
  std::filesystem::create_directories(file_.parent_path(), ec);
  return base::WriteFileAtomic(file_, json.dump());
}

}  // namespace trainpkg::packager::builder
