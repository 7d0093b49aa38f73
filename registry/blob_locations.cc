#include "registry/blob_locations.h"

#include <algorithm>

#include "base/file_util.h"
#include "base/json_parse.h"
#include "base/log.h"
#include "base/private_file.h"
#include "base/status_macros.h"
#include "nlohmann/json.hpp"

namespace trainpkg::registry {

absl::StatusOr<std::unique_ptr<BlobLocations>> BlobLocations::Open(
    const std::filesystem::path& file) {
  auto locations = std::make_unique<BlobLocations>();
  locations->file_ = file;
  std::error_code ec;
  if (!std::filesystem::exists(file, ec)) return locations;
  TP_ASSIGN_OR_RETURN(std::string text, base::ReadFile(file));
  nlohmann::json doc = base::ParseJson(text).value_or(nlohmann::json::value_t::discarded);
  if (!doc.is_object()) {
    TP_LOG(WARNING, "{} is not a JSON object; starting with an empty blob location cache",
           file.string());
    return locations;
  }
  for (const auto& [digest, repos] : doc.items()) {
    if (!oci::Digest::Parse(digest).ok() || !repos.is_array()) continue;
    std::vector<Repository>& list = locations->by_digest_[digest];
    for (const nlohmann::json& name : repos) {
      if (!name.is_string()) continue;
      absl::StatusOr<Repository> repo = ParseRepository(name.get<std::string>());
      if (repo.ok() && list.size() < kMaxRepositoriesPerBlob) list.push_back(*repo);
    }
  }
  return locations;
}

std::vector<Repository> BlobLocations::Find(const oci::Digest& digest,
                                            std::string_view registry) const {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Repository> out;
  auto it = by_digest_.find(digest.ToString());
  if (it == by_digest_.end()) return out;
  for (const Repository& repo : it->second) {
    if (repo.registry == registry) out.push_back(repo);
  }
  return out;
}

void BlobLocations::Record(const oci::Digest& digest, const Repository& repository) {
  std::lock_guard<std::mutex> lock(mu_);
  std::vector<Repository>& list = by_digest_[digest.ToString()];
  if (!list.empty() && list.front() == repository) return;
  changed_ = true;
  std::erase(list, repository);
  // Most recent first, and capped: the repository a blob was last seen in is
  // the likeliest to still hold it, and a push tries each in turn.
  list.insert(list.begin(), repository);
  if (list.size() > kMaxRepositoriesPerBlob) list.resize(kMaxRepositoriesPerBlob);
}

absl::Status BlobLocations::Save() const {
  if (file_.empty()) return absl::OkStatus();
  {
    std::lock_guard<std::mutex> lock(mu_);
    if (!changed_) return absl::OkStatus();
  }
  nlohmann::json doc = nlohmann::json::object();
  {
    std::lock_guard<std::mutex> lock(mu_);
    for (const auto& [digest, repos] : by_digest_) {
      nlohmann::json names = nlohmann::json::array();
      for (const Repository& repo : repos) names.push_back(repo.Name());
      doc[digest] = std::move(names);
    }
  }
  // A cache: losing the newest contents to a crash costs a mount or two,
  // not correctness (Open starts empty on a file it cannot read), so no
  // fsync holds up the end of every push and pull. Private: it names the
  // repositories the user pushed to and pulled from.
  return base::WriteFileAtomicPrivate(file_, doc.dump(), base::FileSync::kNoSync);
}

}  // namespace trainpkg::registry
