#include "sdk/cli/access_token_flags.h"

#include <fstream>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace trainpkg::cli {
namespace {

// At most kMaxAccessTokenBytes + 1 bytes of `in`.
std::string ReadCapped(std::istream& in) {
  // One byte more than allowed tells "too large" apart, and a stream that
  // never ends (/dev/zero) cannot fill memory.
  std::string text(kMaxAccessTokenBytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  text.resize(static_cast<size_t>(in.gcount()));
  return text;
}

absl::StatusOr<std::string> ReadTokenFile(const std::string& file, std::istream& in) {
  std::string text;
  if (file == "-") {
    text = ReadCapped(in);
  } else {
    std::ifstream stream(file, std::ios::binary);
    if (!stream) {
      return absl::InvalidArgumentError(absl::StrCat("--access-token-file: cannot read ", file));
    }
    text = ReadCapped(stream);
  }
  const std::string what = file == "-" ? "standard input" : file;
  if (text.size() > kMaxAccessTokenBytes) {
    return absl::InvalidArgumentError(absl::StrCat("--access-token-file: ", what,
                                                   " is larger than ", kMaxAccessTokenBytes,
                                                   " bytes; it should hold one access token"));
  }
  std::string token(absl::StripAsciiWhitespace(text));
  if (token.empty()) {
    return absl::InvalidArgumentError(
        absl::StrCat("--access-token-file: ", what, " holds no token"));
  }
  return token;
}

}  // namespace

void AddAccessTokenFlags(CLI::App& command, AccessTokenFlags& flags,
                         const std::string& applies_to) {
  command.add_option("--access-token-file", flags.file,
                     absl::StrCat(applies_to,
                                  ": read the bearer token from FILE ('-': standard input) "
                                  "instead of Application Default Credentials; else $",
                                  kAccessTokenVariable, " when set"));
  // Hidden: a token on the command line is readable by every user in ps.
  command.add_option("--access-token", flags.argv_token)->group("");
}

bool AccessTokenFlagGiven(const AccessTokenFlags& flags) {
  return !flags.file.empty() || !flags.argv_token.empty();
}

absl::StatusOr<std::shared_ptr<sdk::auth::Credentials>> AccessTokenCredentialsFromFlags(
    const AccessTokenFlags& flags, const base::Environment& env, std::istream& in) {
  if (!flags.argv_token.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "--access-token: a token on the command line is visible to every local user (ps, "
        "/proc/<pid>/cmdline) and is no longer taken; set ",
        kAccessTokenVariable, " or pass --access-token-file FILE ('-' reads standard input)"));
  }
  std::string token;
  if (!flags.file.empty()) {
    absl::StatusOr<std::string> read = ReadTokenFile(flags.file, in);
    if (!read.ok()) return read.status();
    token = *std::move(read);
  } else if (std::optional<std::string> value = env.Get(kAccessTokenVariable)) {
    token = std::string(absl::StripAsciiWhitespace(*value));
    if (token.empty()) {
      return absl::InvalidArgumentError(absl::StrCat("$", kAccessTokenVariable,
                                                     " is set but empty; unset it to use "
                                                     "Application Default Credentials"));
    }
  } else {
    return std::shared_ptr<sdk::auth::Credentials>();
  }
  return std::shared_ptr<sdk::auth::Credentials>(
      std::make_shared<sdk::auth::AccessTokenCredentials>(std::move(token)));
}

}  // namespace trainpkg::cli
