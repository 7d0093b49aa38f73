#include "registry/transfer_result.h"

#include "nlohmann/json.hpp"

namespace trainpkg::registry {

std::string TransferResultJson(const TransferResult& result) {
  nlohmann::json blobs = nlohmann::json::array();
  for (const BlobReport& blob : result.blobs) {
    nlohmann::json entry = {{"digest", blob.descriptor.digest.ToString()},
                            {"mediaType", blob.descriptor.media_type},
                            {"size", blob.descriptor.size},
                            {"action", std::string(BlobActionName(blob.action))}};
    if (!blob.source.empty()) entry["from"] = blob.source;
    blobs.push_back(std::move(entry));
  }
  nlohmann::json doc = {{"reference", result.reference},
                        {"digest", result.root.digest.ToString()},
                        {"mediaType", result.root.media_type},
                        {"size", result.root.size},
                        {"blobs", std::move(blobs)}};
  return doc.dump();
}

}  // namespace trainpkg::registry
