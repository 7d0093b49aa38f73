#include "packager/bundle/etc_files.h"

#include "base/file_util.h"
#include "base/status_context.h"
#include "base/status_macros.h"
#include "fmt/format.h"

namespace trainpkg::packager::bundle {

absl::Status WriteEtcFiles(const std::filesystem::path& dir, const std::string& ca_bundle) {
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::create_directories(dir / "etc", ec);
  if (!ec) fs::create_directories(dir / "tmp", ec);
  if (ec) return base::ErrnoToStatus(ec.value(), fmt::format("creating {}", dir.string()));
  TP_RETURN_IF_ERROR(
      base::WriteFileAtomic(dir / "etc/passwd",
                            "root:x:0:0:root:/root:/usr/sbin/nologin\n"
                            "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"));
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(dir / "etc/group", "root:x:0:\nnogroup:x:65534:\n"));
  // Only `files` and `dns`: glibc (2.34 on) has both inside libc, and the
  // bundle holds no other libnss_* module (they are dlopened, never DT_NEEDED).
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(dir / "etc/nsswitch.conf",
                                           "passwd: files\n"
                                           "group: files\n"
                                           "shadow: files\n"
                                           "hosts: files dns\n"
                                           "networks: files\n"
                                           "protocols: files\n"
                                           "services: files\n"));
  TP_RETURN_IF_ERROR(base::WriteFileAtomic(dir / "etc/hosts",
                                           "127.0.0.1\tlocalhost\n"
                                           "::1\tlocalhost ip6-localhost ip6-loopback\n"));
  if (!ca_bundle.empty()) {
    auto certs = base::ReadFile(ca_bundle);
    if (!certs.ok()) {
      return base::WithContext(certs.status(), fmt::format("CA certificates {}", ca_bundle));
    }
    fs::create_directories(dir / "etc/ssl/certs", ec);
    if (ec) return base::ErrnoToStatus(ec.value(), "creating etc/ssl/certs");
    TP_RETURN_IF_ERROR(
        base::WriteFileAtomic(dir / fs::path(kCaBundlePath).relative_path(), *certs));
  }
  return absl::OkStatus();
}

}  // namespace trainpkg::packager::bundle
