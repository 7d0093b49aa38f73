// Fuzz target: any bytes through ParseReference and ParseRepository. Must
// never crash or trip a sanitizer; a reference that parses must print as a
// string that parses back to the same reference.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "registry/reference.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg::registry;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<Reference> ref = ParseReference(text);
  if (ref.ok()) {
    std::string printed = ref->String();
    absl::StatusOr<Reference> again = ParseReference(printed);
    TP_CHECK(again.ok(), "'{}' printed as '{}', which does not parse: {}", std::string(text),
             printed, std::string(again.status().message()));
    TP_CHECK(*again == *ref, "'{}' printed as '{}', which parses differently", std::string(text),
             printed);
    (void)ref->Identifier();
    (void)RegistryApiHost(ref->repository.registry);
    (void)IsLoopbackRegistry(ref->repository.registry);
  }
  absl::StatusOr<Repository> repo = ParseRepository(text);
  if (repo.ok()) {
    absl::StatusOr<Repository> again = ParseRepository(repo->Name());
    TP_CHECK(again.ok() && *again == *repo, "repository '{}' does not round-trip via '{}'",
             std::string(text), repo->Name());
  }
  return 0;
}
