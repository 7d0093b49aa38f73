// Where `trainpkg serve` leaves its per-instance bearer token, and how a
// client on the same machine finds it (like Jupyter's runtime files):
//   <home>/serve/<host>_<port>.token
// with <home> the trainpkg home ($TRAINPKG_HOME, else $HOME/.trainpkg), the
// serve directory 0700 and the file 0600, holding the token and a newline.
// serve writes it once it listens on host:port and removes it when it stops.
#ifndef TRAINPKG_SDK_VERTEX_LOCAL_SERVE_TOKEN_H_
#define TRAINPKG_SDK_VERTEX_LOCAL_SERVE_TOKEN_H_

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace trainpkg::sdk::vertex {

// The token file of a serve listening on host:port ("::1" for IPv6, no
// brackets).
std::filesystem::path LocalServeTokenPath(const std::filesystem::path& home, std::string_view host,
                                          int port);

// True for 127.0.0.0/8, ::1 and "localhost" (any case).
bool IsLoopbackHost(std::string_view host);

// For "http://HOST[:PORT][/...]" with HOST a loopback address (127.0.0.0/8,
// [::1], localhost): HOST without brackets and PORT (80 when absent).
// nullopt for any other endpoint (https, a remote host, not a URL).
struct LoopbackEndpoint {
  std::string host;
  int port = 0;
};
std::optional<LoopbackEndpoint> ParseLoopbackEndpoint(std::string_view endpoint);

// The token of the serve at `endpoint` (a loopback endpoint): the token file
// of its host:port, or, for 127.0.0.1, localhost and ::1 (which serve treats
// as one address), of the others. NotFound naming the file looked for when
// there is none; FailedPrecondition when the file is not a regular file or
// does not hold a token.
absl::StatusOr<std::string> ReadLocalServeToken(const std::filesystem::path& home,
                                                const LoopbackEndpoint& endpoint);

// True for the text serve generates: 32 to 512 characters of [A-Za-z0-9_-].
bool IsWellFormedServeToken(std::string_view token);

}  // namespace trainpkg::sdk::vertex

#endif  // TRAINPKG_SDK_VERTEX_LOCAL_SERVE_TOKEN_H_
