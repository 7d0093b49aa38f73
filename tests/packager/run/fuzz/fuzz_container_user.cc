// Fuzz target: the image config's User resolved against an image's
// /etc/passwd and /etc/group. Input: the User spec on the first line, then
// the passwd text, a line "--group--", and the group text. When the first
// byte of the passwd text is '@', etc/passwd is instead a symlink to one of
// a few fixed targets (the next byte picks): an absolute path into the
// image, one climbing out of it, a host file and /dev/zero, the way a
// hostile image plants them. Must never crash, hang, trip a sanitizer,
// read outside the rootfs or grow without bound; errors are fine.
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <string_view>

#include "packager/run/container_user.h"
#include "tests/fuzz/fuzz_scratch.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace trainpkg;
  constexpr const char* kLinkTargets[] = {"/etc/passwd.real", "../../outside/passwd",
                                          "/etc/hostname", "/dev/zero"};
  std::string_view text(reinterpret_cast<const char*>(data), size);
  size_t newline = text.find('\n');
  std::string_view user = text.substr(0, newline);
  std::string_view files = newline == std::string_view::npos ? "" : text.substr(newline + 1);
  size_t split = files.find("--group--\n");
  std::string_view passwd = files.substr(0, split);
  std::string_view group = split == std::string_view::npos ? "" : files.substr(split + 10);

  base::TempDir dir = fuzz::ScratchDir();
  const std::filesystem::path rootfs = dir.path() / "rootfs";
  std::filesystem::create_directories(rootfs / "etc");
  std::filesystem::create_directories(dir.path() / "outside");
  fuzz::WriteScratchFile(dir.path() / "outside/passwd", "outside:x:4242:4242::/:/bin/sh\n");
  if (passwd.size() >= 2 && passwd[0] == '@') {
    fuzz::WriteScratchFile(rootfs / "etc/passwd.real", passwd.substr(2));
    std::filesystem::create_symlink(kLinkTargets[static_cast<uint8_t>(passwd[1]) % 4],
                                    rootfs / "etc/passwd");
  } else {
    fuzz::WriteScratchFile(rootfs / "etc/passwd", passwd);
  }
  fuzz::WriteScratchFile(rootfs / "etc/group", group);
  (void)packager::run::ResolveContainerUser(rootfs, user);
  return 0;
}
