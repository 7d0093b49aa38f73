#include "registry/oci/layout_reference.h"

#include "fmt/format.h"

namespace trainpkg::oci {
namespace {

bool IsAlnum(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
}

bool IsSeparator(char c) {
  return c == '-' || c == '.' || c == '_' || c == ':' || c == '@' || c == '+';
}

// component ::= alphanum (separator alphanum)*, separator ::= [-._:@+] | "--"
bool IsComponent(std::string_view text) {
  size_t i = 0;
  auto alphanum_run = [&]() {
    size_t start = i;
    while (i < text.size() && IsAlnum(text[i])) ++i;
    return i > start;
  };
  if (!alphanum_run()) return false;
  while (i < text.size()) {
    if (text.substr(i, 2) == "--") {
      i += 2;
    } else if (IsSeparator(text[i])) {
      ++i;
    } else {
      return false;
    }
    if (!alphanum_run()) return false;
  }
  return true;
}

}  // namespace

absl::Status ValidateRefName(std::string_view tag) {
  size_t start = 0;
  for (;;) {
    size_t slash = tag.find('/', start);
    if (!IsComponent(tag.substr(start, slash - start))) {
      return absl::InvalidArgumentError(fmt::format(
          "invalid tag \"{}\": use letters and digits joined by '-', '.', '_', ':', '@', '+' "
          "or '/'",
          tag));
    }
    if (slash == std::string_view::npos) return absl::OkStatus();
    start = slash + 1;
  }
}

absl::StatusOr<LayoutReference> ParseLayoutReference(std::string_view text) {
  constexpr std::string_view kPrefix = "oci:";
  if (text.substr(0, kPrefix.size()) != kPrefix) {
    return absl::InvalidArgumentError(
        fmt::format("\"{}\" is not an oci-layout reference (expected oci:DIR[:TAG])", text));
  }
  std::string_view rest = text.substr(kPrefix.size());
  size_t colon = rest.find(':');
  LayoutReference reference;
  reference.dir = std::string(rest.substr(0, colon));
  if (reference.dir.empty()) {
    return absl::InvalidArgumentError(
        fmt::format("\"{}\": the directory is empty (expected oci:DIR[:TAG])", text));
  }
  if (colon != std::string_view::npos) {
    reference.tag = std::string(rest.substr(colon + 1));
    absl::Status tag_ok = ValidateRefName(reference.tag);
    if (!tag_ok.ok()) {
      return absl::InvalidArgumentError(
          fmt::format("\"{}\": {}", text, std::string(tag_ok.message())));
    }
  }
  return reference;
}

std::string FormatLayoutReference(const LayoutReference& reference) {
  if (reference.tag.empty()) return fmt::format("oci:{}", reference.dir.string());
  return fmt::format("oci:{}:{}", reference.dir.string(), reference.tag);
}

}  // namespace trainpkg::oci
