#include "registry/internal/digest.h"

#include <openssl/evp.h>

#include <cstdlib>

#include "fmt/format.h"

namespace trainpkg::registry::internal {
namespace {

bool IsLowerHex(char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }
bool IsHex(char c) { return IsLowerHex(c) || (c >= 'A' && c <= 'F'); }
bool IsAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool IsAlnum(char c) { return IsAlpha(c) || (c >= '0' && c <= '9'); }
bool IsAlgorithmSeparator(char c) { return c == '+' || c == '.' || c == '_' || c == '-'; }

absl::Status Invalid(std::string_view digest, std::string_view why) {
  return absl::InvalidArgumentError(fmt::format("digest \"{}\" is invalid: {}", digest, why));
}

}  // namespace

absl::Status ValidateDigest(std::string_view digest) {
  size_t colon = digest.find(':');
  if (colon == std::string_view::npos) {
    return Invalid(digest, "expected <algorithm>:<hex>, e.g. sha256:<64 hex digits>");
  }
  std::string_view algorithm = digest.substr(0, colon);
  std::string_view hex = digest.substr(colon + 1);
  bool component_start = true;
  for (char c : algorithm) {
    if (component_start ? !IsAlpha(c) : !(IsAlnum(c) || IsAlgorithmSeparator(c))) {
      return Invalid(digest, "the algorithm must be letters and digits, starting with a letter");
    }
    component_start = IsAlgorithmSeparator(c);
  }
  if (algorithm.empty() || component_start) {
    return Invalid(digest, "the algorithm must be letters and digits, starting with a letter");
  }
  size_t want = algorithm == "sha256" ? 64 : algorithm == "sha512" ? 128 : 0;
  if (want != 0) {
    for (char c : hex) {
      if (!IsLowerHex(c)) return Invalid(digest, fmt::format("{} needs lowercase hex", algorithm));
    }
    if (hex.size() != want) {
      return Invalid(digest,
                     fmt::format("{} needs {} hex digits, got {}", algorithm, want, hex.size()));
    }
    return absl::OkStatus();
  }
  for (char c : hex) {
    if (!IsHex(c)) return Invalid(digest, "the encoded part must be hex digits");
  }
  if (hex.size() < 32) return Invalid(digest, "the encoded part needs at least 32 hex digits");
  return absl::OkStatus();
}

struct Sha256::Ctx {
  EVP_MD_CTX* md = nullptr;
};

Sha256::Sha256() : ctx_(std::make_unique<Ctx>()) {
  ctx_->md = EVP_MD_CTX_new();
  if (ctx_->md == nullptr || EVP_DigestInit_ex(ctx_->md, EVP_sha256(), nullptr) != 1) {
    fmt::print(stderr, "OpenSSL could not initialise SHA-256\n");
    std::abort();
  }
}

Sha256::~Sha256() { EVP_MD_CTX_free(ctx_->md); }

void Sha256::Update(std::string_view data) {
  if (EVP_DigestUpdate(ctx_->md, data.data(), data.size()) != 1) {
    fmt::print(stderr, "OpenSSL SHA-256 update failed\n");
    std::abort();
  }
}

std::string Sha256::Finish() {
  unsigned char out[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  if (EVP_DigestFinal_ex(ctx_->md, out, &len) != 1) {
    fmt::print(stderr, "OpenSSL SHA-256 final failed\n");
    std::abort();
  }
  std::string hex = "sha256:";
  for (unsigned int i = 0; i < len; ++i) hex += fmt::format("{:02x}", out[i]);
  return hex;
}

std::string Sha256Digest(std::string_view data) {
  Sha256 sha;
  sha.Update(data);
  return sha.Finish();
}

}  // namespace trainpkg::registry::internal
