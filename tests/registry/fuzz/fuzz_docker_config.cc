// Fuzz target: any bytes as docker's config.json ($DOCKER_CONFIG), resolved
// for Docker Hub, a registry with a port and one found only by a legacy
// "https://host/v1/" key. PATH is an empty directory, so a credHelpers or
// credsStore entry finds no helper (fuzz_credential_helper.cc covers their
// output). Must never crash, hang or trip a sanitizer; errors are fine.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "base/environment.h"
#include "registry/auth/docker_config.h"
#include "tests/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  base::TempDir dir = fuzz::ScratchDir();
  fuzz::WriteScratchFile(dir.path() / "config.json", bytes);
  base::MapEnvironment env({{"DOCKER_CONFIG", dir.path().string()},
                            {"HOME", dir.path().string()},
                            {"PATH", (dir.path() / "no-helpers").string()}});
  registry::DockerKeychain keychain(env);
  for (const char* name : {"docker.io", "localhost:5000", "gcr.io", "registry.test"}) {
    (void)keychain.Resolve(name);
  }
  return 0;
}
