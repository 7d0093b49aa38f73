// Where `trainpkg` takes a Vertex AI (or `trainpkg serve`) bearer token from,
// never the command line, which every local user can read in `ps`:
//   --access-token-file FILE   the token in FILE ("-": standard input), as gcloud takes it
//   $CLOUDSDK_AUTH_ACCESS_TOKEN  gcloud's variable, when no file is given
// and else Application Default Credentials. `--access-token TOKEN` is
// refused with a message naming these two.
#ifndef TRAINPKG_SDK_CLI_ACCESS_TOKEN_FLAGS_H_
#define TRAINPKG_SDK_CLI_ACCESS_TOKEN_FLAGS_H_

#include <istream>
#include <memory>
#include <string>

#include "CLI/CLI.hpp"
#include "absl/status/statusor.h"
#include "base/environment.h"
#include "sdk/auth/credentials.h"

namespace trainpkg::cli {

inline constexpr char kAccessTokenVariable[] = "CLOUDSDK_AUTH_ACCESS_TOKEN";
// A token file larger than this is not a token.
inline constexpr size_t kMaxAccessTokenBytes = 64 * 1024;

struct AccessTokenFlags {
  std::string file;        // --access-token-file; "-" is standard input
  std::string argv_token;  // --access-token (hidden): only to refuse it
};

// Declares --access-token-file (described with `applies_to`, e.g. "vertex")
// and the hidden, refused --access-token on `command`.
void AddAccessTokenFlags(CLI::App& command, AccessTokenFlags& flags, const std::string& applies_to);

// True when a flag of `flags` was given.
bool AccessTokenFlagGiven(const AccessTokenFlags& flags);

// The credentials the flags and `env` name, or nullptr when none does (the
// caller then uses Application Default Credentials). `in` is read for "-".
// InvalidArgument naming the flag for --access-token (the token would show in
// ps), an unreadable, empty or over-64-KiB file, or an empty
// $CLOUDSDK_AUTH_ACCESS_TOKEN. Leading and trailing whitespace (a newline
// from `gcloud auth print-access-token > FILE`) is not part of the token.
absl::StatusOr<std::shared_ptr<sdk::auth::Credentials>> AccessTokenCredentialsFromFlags(
    const AccessTokenFlags& flags, const base::Environment& env, std::istream& in);

}  // namespace trainpkg::cli

#endif  // TRAINPKG_SDK_CLI_ACCESS_TOKEN_FLAGS_H_
