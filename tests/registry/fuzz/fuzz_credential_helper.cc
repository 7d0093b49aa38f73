// Fuzz target: any bytes as what a docker credential helper prints for
// `get` (and its exit status: the first byte's low bit set makes it exit 1,
// as helpers do for "credentials not found" and other failures). The helper
// is a shell script on a scratch PATH that prints the rest of the input.
// Must never crash, hang or trip a sanitizer; errors are fine, and the
// secret never appears in an error.
#include <sys/stat.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "base/check.h"
#include "base/environment.h"
#include "registry/auth/credential_helper.h"
#include "tests/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  if (size == 0) return 0;
  const bool fail = (data[0] & 1) != 0;
  std::string_view output(reinterpret_cast<const char*>(data) + 1, size - 1);
  base::TempDir dir = fuzz::ScratchDir();
  fuzz::WriteScratchFile(dir.path() / "output", output);
  const auto helper = dir.path() / "docker-credential-fuzz";
  fuzz::WriteScratchFile(helper, std::string("#!/bin/sh\ncat \"$(dirname \"$0\")/output\"\nexit ") +
                                     (fail ? "1" : "0") + "\n");
  TP_CHECK(::chmod(helper.c_str(), 0700) == 0, "chmod {}", helper.string());
  base::MapEnvironment env({{"PATH", dir.path().string()}});
  registry::CredentialHelper credential_helper(env, "fuzz");
  (void)credential_helper.Get("https://registry.test");
  return 0;
}
