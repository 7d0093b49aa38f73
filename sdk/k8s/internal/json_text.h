// Reading string fields of API objects that may lack them.
#ifndef TRAINPKG_SDK_K8S_INTERNAL_JSON_TEXT_H_
#define TRAINPKG_SDK_K8S_INTERNAL_JSON_TEXT_H_

#include <string>

#include "nlohmann/json.hpp"

namespace trainpkg::sdk::k8s::internal {

// object[key] when `object` is an object holding a string there, else "".
inline std::string Text(const nlohmann::json& object, const char* key) {
  if (!object.is_object()) return std::string();
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

}  // namespace trainpkg::sdk::k8s::internal

#endif  // TRAINPKG_SDK_K8S_INTERNAL_JSON_TEXT_H_
