// The one serialization of OCI JSON that trainpkg writes: fields in the
// order of the image-spec Go structs, map keys sorted, no whitespace, strings
// escaped like Go's encoding/json (<, >, & and U+2028/2029 as \u escapes,
// invalid UTF-8 replaced by U+FFFD). The same model gives the same bytes
// every time, and the bytes match what go-containerregistry writes for the
// same content.
#ifndef TRAINPKG_REGISTRY_OCI_INTERNAL_CANONICAL_JSON_H_
#define TRAINPKG_REGISTRY_OCI_INTERNAL_CANONICAL_JSON_H_

#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "nlohmann/json.hpp"
#include "registry/oci/digest.h"

namespace trainpkg::oci::internal {

using OrderedJson = nlohmann::ordered_json;

std::string CanonicalDump(const OrderedJson& json);

// Helpers that add a field only when it is not empty (Go's omitempty).
void PutString(OrderedJson& object, std::string_view key, const std::string& value);
void PutStringList(OrderedJson& object, std::string_view key,
                   const std::vector<std::string>& values);
void PutStringMap(OrderedJson& object, std::string_view key,
                  const std::map<std::string, std::string>& values);
// {"key1":{},"key2":{}}
void PutKeySet(OrderedJson& object, std::string_view key, const std::set<std::string>& keys);
// Fields kept from the input that the model does not name, after the known ones.
// REQUIRES: every value is JSON text (aborts otherwise).
void PutUnknown(OrderedJson& object, const std::map<std::string, std::string>& unknown);

OrderedJson DigestList(const std::vector<Digest>& digests);

}  // namespace trainpkg::oci::internal

#endif  // TRAINPKG_REGISTRY_OCI_INTERNAL_CANONICAL_JSON_H_
