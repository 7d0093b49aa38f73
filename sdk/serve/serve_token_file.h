// `trainpkg serve`'s per-instance secret: a random bearer token every request
// must carry, and the file beside it (sdk/vertex/local_serve_token.h says
// where) through which the sdk's Vertex backend and the CLI on this machine
// pick the token up.
#ifndef TRAINPKG_SDK_SERVE_SERVE_TOKEN_FILE_H_
#define TRAINPKG_SDK_SERVE_SERVE_TOKEN_FILE_H_

#include <filesystem>
#include <string>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::serve {

// 32 bytes from getrandom(2) as unpadded base64url: 43 characters of
// [A-Za-z0-9_-]. Internal when the kernel gives no randomness.
absl::StatusOr<std::string> GenerateServeToken();

// The token file of one serve instance; removes it when destroyed. Move-only.
class ServeTokenFile {
 public:
  // Creates the parent directory (0700; an existing one is set to 0700) and
  // writes "<token>\n" to `path` with mode 0600, replacing a stale file a
  // serve that died left there (never following a symlink at `path`).
  // The errors of the file system calls, naming the path.
  static absl::StatusOr<ServeTokenFile> Write(const std::filesystem::path& path,
                                              const std::string& token);

  ServeTokenFile(ServeTokenFile&& other) noexcept;
  ServeTokenFile& operator=(ServeTokenFile&& other) noexcept;
  ServeTokenFile(const ServeTokenFile&) = delete;
  ServeTokenFile& operator=(const ServeTokenFile&) = delete;
  ~ServeTokenFile();

  const std::filesystem::path& path() const { return path_; }

 private:
  explicit ServeTokenFile(std::filesystem::path path) : path_(std::move(path)) {}

  std::filesystem::path path_;  // empty once moved from
};

}  // namespace trainpkg::sdk::serve

#endif  // TRAINPKG_SDK_SERVE_SERVE_TOKEN_FILE_H_
