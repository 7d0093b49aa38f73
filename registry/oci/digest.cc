#include "registry/oci/digest.h"

#include <utility>

#include "fmt/format.h"

namespace trainpkg::oci {
namespace {

bool IsLowerAlnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

bool IsLowerHex(char c) { return (c >= 'a' && c <= 'f') || (c >= '0' && c <= '9'); }

// algorithm-component ("+" / "." / "_" / "-" algorithm-component)*, with
// components of [a-z0-9]+ (image-spec descriptor.md).
bool IsAlgorithmGrammar(std::string_view text) {
  bool need_component = true;
  for (char c : text) {
    if (IsLowerAlnum(c)) {
      need_component = false;
    } else if ((c == '+' || c == '.' || c == '_' || c == '-') && !need_component) {
      need_component = true;
    } else {
      return false;
    }
  }
  return !need_component;
}

// [a-zA-Z0-9=_-]+
bool IsEncodedGrammar(std::string_view text) {
  if (text.empty()) return false;
  for (char c : text) {
    bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '=' || c == '_' || c == '-';
    if (!ok) return false;
  }
  return true;
}

absl::Status CheckHex(DigestAlgorithm algorithm, std::string_view hex, std::string_view text) {
  size_t want = DigestHexLength(algorithm);
  if (hex.size() != want) {
    return absl::InvalidArgumentError(
        fmt::format("invalid digest \"{}\": {} needs {} hex digits, got {}", text,
                    DigestAlgorithmName(algorithm), want, hex.size()));
  }
  // Lowercase only: two spellings of one digest would name two blobs in a
  // layout and two keys in every cache.
  for (char c : hex) {
    if (!IsLowerHex(c)) {
      return absl::InvalidArgumentError(fmt::format(
          "invalid digest \"{}\": the encoded part must be lowercase hex, found '{}'", text, c));
    }
  }
  return absl::OkStatus();
}

}  // namespace

std::string_view DigestAlgorithmName(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::kSha512 ? "sha512" : "sha256";
}

size_t DigestHexLength(DigestAlgorithm algorithm) {
  return algorithm == DigestAlgorithm::kSha512 ? 128 : 64;
}

absl::StatusOr<Digest> Digest::Parse(std::string_view text) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError(
        fmt::format("invalid digest \"{}\": expected <algorithm>:<encoded>", text));
  }
  std::string_view algorithm_text = text.substr(0, colon);
  std::string_view encoded = text.substr(colon + 1);
  if (!IsAlgorithmGrammar(algorithm_text)) {
    return absl::InvalidArgumentError(
        fmt::format("invalid digest \"{}\": malformed algorithm \"{}\"", text, algorithm_text));
  }
  if (!IsEncodedGrammar(encoded)) {
    return absl::InvalidArgumentError(
        fmt::format("invalid digest \"{}\": malformed encoded part", text));
  }
  DigestAlgorithm algorithm;
  if (algorithm_text == "sha256") {
    algorithm = DigestAlgorithm::kSha256;
  } else if (algorithm_text == "sha512") {
    algorithm = DigestAlgorithm::kSha512;
  } else {
    return absl::InvalidArgumentError(
        fmt::format("unsupported digest algorithm \"{}\" in \"{}\" (supported: sha256, sha512)",
                    algorithm_text, text));
  }
  absl::Status hex_ok = CheckHex(algorithm, encoded, text);
  if (!hex_ok.ok()) return hex_ok;
  return Digest(algorithm, std::string(encoded));
}

absl::StatusOr<Digest> Digest::FromHex(DigestAlgorithm algorithm, std::string_view hex) {
  std::string text = fmt::format("{}:{}", DigestAlgorithmName(algorithm), hex);
  absl::Status hex_ok = CheckHex(algorithm, hex, text);
  if (!hex_ok.ok()) return hex_ok;
  return Digest(algorithm, std::string(hex));
}

std::string_view Digest::algorithm_name() const { return DigestAlgorithmName(algorithm_); }

std::string Digest::ToString() const {
  if (empty()) return "";
  return fmt::format("{}:{}", algorithm_name(), hex_);
}

}  // namespace trainpkg::oci
