#include "registry/auth/challenge.h"

#include "absl/strings/ascii.h"

namespace trainpkg::registry {
namespace {

bool IsTokenChar(char c) {
  if (absl::ascii_isalnum(static_cast<unsigned char>(c))) return true;
  std::string_view extra = "!#$%&'*+-.^_`|~/:";  // tchar, plus '/' and ':' seen in the wild
  return extra.find(c) != std::string_view::npos;
}

class Scanner {
 public:
  explicit Scanner(std::string_view text) : text_(text) {}
  bool Done() const { return pos_ >= text_.size(); }
  char Peek() const { return Done() ? '\0' : text_[pos_]; }
  void Advance() { ++pos_; }
  size_t pos() const { return pos_; }
  void Reset(size_t pos) { pos_ = pos; }

  void SkipSpace() {
    while (!Done() && (Peek() == ' ' || Peek() == '\t')) ++pos_;
  }
  void SkipSpaceAndCommas() {
    while (!Done() && (Peek() == ' ' || Peek() == '\t' || Peek() == ',')) ++pos_;
  }
  std::string Token() {
    size_t start = pos_;
    while (!Done() && IsTokenChar(Peek())) ++pos_;
    return std::string(text_.substr(start, pos_ - start));
  }
  // REQUIRES: Peek() == '"'. Reads to the closing quote (or the end).
  std::string Quoted() {
    ++pos_;
    std::string out;
    while (!Done() && Peek() != '"') {
      if (Peek() == '\\' && pos_ + 1 < text_.size()) ++pos_;
      out += text_[pos_++];
    }
    if (!Done()) ++pos_;
    return out;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

}  // namespace

std::string Challenge::Param(const std::string& name) const {
  auto it = params.find(name);
  return it == params.end() ? std::string() : it->second;
}

std::vector<Challenge> ParseChallenges(std::string_view header) {
  std::vector<Challenge> out;
  Scanner s(header);
  // One header may hold several challenges ("Bearer realm=..., Basic
  // realm=..."); a name with no '=' after it starts the next one.
  while (true) {
    s.SkipSpaceAndCommas();
    std::string scheme = s.Token();
    if (scheme.empty()) break;
    Challenge challenge{.scheme = absl::AsciiStrToLower(scheme), .params = {}};
    while (true) {
      s.SkipSpaceAndCommas();
      size_t before = s.pos();
      std::string name = s.Token();
      s.SkipSpace();
      if (name.empty() || s.Peek() != '=') {
        s.Reset(before);  // the next challenge's scheme, or the end
        break;
      }
      s.Advance();
      s.SkipSpace();
      std::string value = s.Peek() == '"' ? s.Quoted() : s.Token();
      challenge.params[absl::AsciiStrToLower(name)] = value;
    }
    out.push_back(std::move(challenge));
  }
  return out;
}

}  // namespace trainpkg::registry
