#include "packager/builder/file_digest_cache.h"

#include <algorithm>
#include <atomic>
#include <ctime>
#include <thread>

#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/status_macros.h"
#include "fmt/format.h"
#include "nlohmann/json.hpp"
#include "registry/oci/digest_builder.h"

namespace trainpkg::packager::builder {
namespace {

// Git's "racy" problem: a file changed again within the mtime granularity
// (2 s on FAT) keeps its stat key, so a digest taken that soon after a change
// is used for this build only, never saved.
constexpr int64_t kRacyWindowSeconds = 2;

std::string StatKey(const ContextFile& f) {
  // The inode too: a file replaced by rename with the same size and mtime
  // is still noticed.
  return fmt::format("{}:{}.{}:{}:{}", f.size, f.mtime_sec, f.mtime_nsec, f.inode, f.device);
}

absl::StatusOr<std::string> HashFile(const std::filesystem::path& path) {
  TP_ASSIGN_OR_RETURN(oci::DigestAndSize hashed,
                      oci::DigestFile(path, oci::DigestAlgorithm::kSha256));
  return hashed.digest.hex();
}

}  // namespace

FileDigestCache FileDigestCache::Load(std::filesystem::path file) {
  FileDigestCache cache;
  cache.file_ = std::move(file);
  if (cache.file_.empty()) return cache;
  auto text = base::ReadFile(cache.file_);
  if (!text.ok()) return cache;
  nlohmann::json json = base::ParseJson(*text).value_or(nlohmann::json::value_t::discarded);
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
  auto fresh = hashed_.find(path.string());
  if (fresh != hashed_.end() && fresh->second.key == key) return fresh->second.digest;

  TP_ASSIGN_OR_RETURN(std::string digest, HashFile(path));
  ++files_hashed_;
  hashed_[path.string()] = Entry{key, digest};
  if (std::time(nullptr) - stat.mtime_sec >= kRacyWindowSeconds) {
    entries_[path.string()] = Entry{key, digest};
    dirty_ = true;
  }
  return digest;
}

absl::Status FileDigestCache::Prefetch(const std::filesystem::path& root,
                                       const std::vector<const ContextFile*>& files, int threads) {
  std::vector<const ContextFile*> misses;
  for (const ContextFile* f : files) {
    auto it = entries_.find((root / f->rel).string());
    if (it == entries_.end() || it->second.key != StatKey(*f)) misses.push_back(f);
  }
  if (threads < 2 || misses.size() < 2) return absl::OkStatus();  // Digest() hashes them
  std::vector<absl::StatusOr<std::string>> digests(misses.size(), std::string());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i = next++; i < misses.size(); i = next++) {
      digests[i] = HashFile(root / misses[i]->rel);
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < std::min<int>(threads, static_cast<int>(misses.size())); ++t) {
    pool.emplace_back(work);
  }
  work();
  for (std::thread& thread : pool) thread.join();
  for (size_t i = 0; i < misses.size(); ++i) {
    if (!digests[i].ok()) return digests[i].status();
    const ContextFile& f = *misses[i];
    const std::string path = (root / f.rel).string();
    ++files_hashed_;
    hashed_[path] = Entry{StatKey(f), *digests[i]};
    if (std::time(nullptr) - f.mtime_sec >= kRacyWindowSeconds) {
      entries_[path] = Entry{StatKey(f), *digests[i]};
      dirty_ = true;
    }
  }
  return absl::OkStatus();
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
