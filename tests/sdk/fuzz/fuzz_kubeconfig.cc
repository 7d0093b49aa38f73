// Fuzz target: any bytes as a kubeconfig, for its current context and for a
// context named "kind". Relative file references resolve inside an empty
// scratch directory. Must never crash, hang or trip a sanitizer; errors are
// fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "sdk/k8s/kubeconfig.h"
#include "tests/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view text(reinterpret_cast<const char*>(data), size);
  base::TempDir dir = fuzz::ScratchDir();
  (void)sdk::k8s::ParseKubeconfig(text, dir.path(), "");
  (void)sdk::k8s::ParseKubeconfig(text, dir.path(), "kind");
  return 0;
}
