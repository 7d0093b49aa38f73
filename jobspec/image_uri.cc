#include "jobspec/image_uri.h"

#include <algorithm>

#include "absl/strings/ascii.h"
#include "base/check.h"
#include "base/terminal_text.h"
#include "fmt/format.h"

namespace trainpkg::jobspec {
namespace {

constexpr std::string_view kLocalScheme = "local:";
constexpr std::string_view kOciScheme = "oci:";
constexpr std::string_view kForms =
    "write local:PATH (a host executable), oci:DIR[:TAG] (an oci-layout) or "
    "[REGISTRY/]REPOSITORY[:TAG][@DIGEST] (e.g. us-docker.pkg.dev/p/repo/trainer:1)";
// Enough of a hostile text to recognise it, not the whole of it.
constexpr size_t kShownBytes = 80;

std::string Shown(std::string_view text) {
  if (text.size() <= kShownBytes) return fmt::format("\"{}\"", base::TerminalSafe(text));
  return fmt::format("\"{}\"... ({} bytes)", base::TerminalSafe(text.substr(0, kShownBytes)),
                     text.size());
}

absl::Status InvalidImage(std::string_view text, std::string_view what) {
  return absl::InvalidArgumentError(fmt::format("{}: {}", Shown(text), what));
}

bool IsControl(char c) {
  const auto byte = static_cast<unsigned char>(c);
  return byte < 0x20 || byte == 0x7f;
}

// What every form must satisfy.
absl::Status CheckCommon(std::string_view text) {
  if (text.empty()) {
    return absl::InvalidArgumentError(fmt::format("the image is empty; {}", kForms));
  }
  if (text.size() > kMaxImageUriBytes) {
    return InvalidImage(text, fmt::format("is {} bytes long; at most {} are allowed", text.size(),
                                     kMaxImageUriBytes));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    if (IsControl(text[i])) {
      return InvalidImage(text, fmt::format("holds control byte 0x{:02x} at offset {}; an image "
                                       "names no control characters",
                                       static_cast<unsigned char>(text[i]), i));
    }
  }
  if (absl::ascii_isspace(static_cast<unsigned char>(text.front())) ||
      absl::ascii_isspace(static_cast<unsigned char>(text.back()))) {
    return InvalidImage(text, "starts or ends with white space; remove it");
  }
  return absl::OkStatus();
}

bool IsReferenceChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' ||
         c == '-' || c == '/' || c == ':' || c == '@' || c == '[' || c == ']';
}

absl::Status CheckReference(std::string_view text) {
  for (size_t i = 0; i < text.size(); ++i) {
    if (!IsReferenceChar(text[i])) {
      return InvalidImage(text,
                     fmt::format("'{}' at offset {} is not allowed in a registry reference "
                                 "(letters, digits, . _ - / : @ and the [ ] of an IPv6 host); {}",
                                 base::TerminalSafe(text.substr(i, 1)), i, kForms));
    }
  }
  if (size_t scheme = text.find("://"); scheme != std::string_view::npos) {
    return InvalidImage(text, fmt::format("\"{}://\" is not a form trainpkg reads; name a registry "
                                     "image without a scheme, e.g. gcr.io/p/trainer:1; {}",
                                     text.substr(0, scheme), kForms));
  }
  // The repository path ends at the digest; "." and ".." would walk the
  // registry's URL path (/v2/<name>/manifests/...).
  const std::string_view name = text.substr(0, text.find('@'));
  for (size_t start = 0; start <= name.size();) {
    const size_t slash = std::min(name.find('/', start), name.size());
    const std::string_view component = name.substr(start, slash - start);
    if (component == "." || component == "..") {
      return InvalidImage(text, fmt::format("\"{}\" is not a repository path component; {}",
                                       component, kForms));
    }
    start = slash + 1;
  }
  return absl::OkStatus();
}

}  // namespace

absl::StatusOr<ImageUri> ImageUri::Parse(std::string_view text) {
  if (absl::Status common = CheckCommon(text); !common.ok()) return common;
  if (text.starts_with(kLocalScheme)) {
    std::string_view path = text.substr(kLocalScheme.size());
    if (path.empty()) {
      return absl::InvalidArgumentError(
          "'local:' names no executable; write local:/abs/path/to/executable or a path "
          "relative to the directory the job is started from, e.g. local:build/bin/train");
    }
    return ImageUri(Kind::kLocalExecutable, std::string(text), std::string(path), "");
  }
  if (text.starts_with(kOciScheme)) {
    std::string_view rest = text.substr(kOciScheme.size());
    const size_t colon = rest.find(':');
    std::string_view dir = rest.substr(0, colon);
    if (dir.empty()) {
      return InvalidImage(text, "names no oci-layout directory; write oci:DIR or oci:DIR:TAG");
    }
    std::string_view tag;
    if (colon != std::string_view::npos) {
      tag = rest.substr(colon + 1);
      if (tag.empty()) {
        return InvalidImage(text, "has an empty TAG after the directory; write oci:DIR (the "
                             "layout's only image) or oci:DIR:TAG");
      }
    }
    return ImageUri(Kind::kOciLayout, std::string(text), std::string(dir), std::string(tag));
  }
  if (absl::Status reference = CheckReference(text); !reference.ok()) return reference;
  return ImageUri(Kind::kRegistry, std::string(text), "", "");
}

const std::string& ImageUri::local_path() const {
  TP_CHECK(kind_ == Kind::kLocalExecutable, "local_path() of {}", text_);
  return path_;
}

const std::string& ImageUri::layout_dir() const {
  TP_CHECK(kind_ == Kind::kOciLayout, "layout_dir() of {}", text_);
  return path_;
}

const std::string& ImageUri::layout_tag() const {
  TP_CHECK(kind_ == Kind::kOciLayout, "layout_tag() of {}", text_);
  return tag_;
}

const std::string& ImageUri::reference() const {
  TP_CHECK(kind_ == Kind::kRegistry, "reference() of {}", text_);
  return text_;
}

}  // namespace trainpkg::jobspec
