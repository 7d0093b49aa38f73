#include "packager/dockerfile/shell_word.h"

#include "fmt/format.h"

namespace trainpkg::packager::dockerfile {
namespace {

bool IsDigit(char c) { return c >= '0' && c <= '9'; }
// Bytes of a UTF-8 character count too: BuildKit's lexer takes any Unicode
// letter in a name.
bool IsNameChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
         static_cast<unsigned char>(c) >= 0x80;
}
bool IsSpecialParam(char c) {
  return c == '@' || c == '*' || c == '#' || c == '?' || c == '-' || c == '$' || c == '!' ||
         c == '0';
}

class Lexer {
 public:
  Lexer(std::string_view in, const VarLookup* lookup, char escape)
      : in_(in), lookup_(lookup), escape_(escape) {}

  absl::StatusOr<std::string> Word() {
    std::string out;
    if (absl::Status s = Until(0, out); !s.ok()) return s;
    return out;
  }

  absl::StatusOr<std::string> HeredocBody() {
    std::string out;
    // A here-document: quotes are literal, and the escape character only
    // quotes $, itself and ` (or joins a line), as in sh.
    while (!AtEnd()) {
      char c = in_[pos_++];
      if (c == '$') {
        if (absl::Status s = Dollar(out); !s.ok()) return s;
      } else if (c == escape_ && (Peek() == '$' || Peek() == escape_ || Peek() == '`')) {
        out += in_[pos_++];
      } else if (c == escape_ && Peek() == '\n') {
        ++pos_;
      } else {
        out += c;
      }
    }
    return out;
  }

 private:
  bool AtEnd() const { return pos_ >= in_.size(); }
  char Peek() const { return AtEnd() ? 0 : in_[pos_]; }

  // Reads up to `stop` (0: end of input), consuming `stop`.
  absl::Status Until(char stop, std::string& out) {
    while (!AtEnd()) {
      char c = in_[pos_];
      if (stop != 0 && c == stop) {
        ++pos_;
        return absl::OkStatus();
      }
      ++pos_;
      // sh's quoting: nothing is special between single quotes, not even the
      // escape character.
      if (c == '\'') {
        if (absl::Status s = SingleQuoted(out); !s.ok()) return s;
      } else if (c == '"') {
        if (absl::Status s = DoubleQuoted(out); !s.ok()) return s;
      } else if (c == '$') {
        if (absl::Status s = Dollar(out); !s.ok()) return s;
      } else if (c == escape_) {
        if (AtEnd()) break;
        out += in_[pos_++];
      } else {
        out += c;
      }
    }
    if (stop != 0) return absl::InvalidArgumentError("syntax error: missing '}'");
    return absl::OkStatus();
  }

  absl::Status SingleQuoted(std::string& out) {
    size_t end = in_.find('\'', pos_);
    if (end == std::string_view::npos) {
      return absl::InvalidArgumentError(
          "unexpected end of statement while looking for matching single-quote");
    }
    out.append(in_.substr(pos_, end - pos_));
    pos_ = end + 1;
    return absl::OkStatus();
  }

  absl::Status DoubleQuoted(std::string& out) {
    while (!AtEnd()) {
      char c = in_[pos_++];
      if (c == '"') return absl::OkStatus();
      if (c == '$') {
        if (absl::Status s = Dollar(out); !s.ok()) return s;
        continue;
      }
      if (c == escape_) {
        if (AtEnd()) break;
        char next = Peek();
        // Inside double quotes the escape character only quotes ", $ and itself;
        // before anything else it stays, as sh keeps `\n` in "a\n".
        if (next == '"' || next == '$' || next == escape_) {
          c = next;
          ++pos_;
        }
      }
      out += c;
    }
    return absl::InvalidArgumentError(
        "unexpected end of statement while looking for matching double-quote");
  }

  std::string Name() {
    size_t start = pos_;
    if (!AtEnd() && IsDigit(Peek())) {
      while (!AtEnd() && IsDigit(Peek())) ++pos_;
    } else if (!AtEnd() && IsSpecialParam(Peek())) {
      ++pos_;
    } else {
      while (!AtEnd() && IsNameChar(Peek())) ++pos_;
    }
    return std::string(in_.substr(start, pos_ - start));
  }

  std::optional<std::string> Get(const std::string& name) const {
    if (lookup_ == nullptr) return std::nullopt;
    return (*lookup_)(name);
  }

  absl::Status Dollar(std::string& out) {
    if (Peek() != '{') {
      std::string name = Name();
      if (name.empty()) {
        out += '$';
      } else {
        out += Get(name).value_or("");
      }
      return absl::OkStatus();
    }
    ++pos_;
    char first = Peek();
    if (AtEnd()) return absl::InvalidArgumentError("syntax error: missing '}'");
    if (first == '{' || first == '}' || first == ':') {
      return absl::InvalidArgumentError("syntax error: bad substitution");
    }
    std::string name = Name();
    if (AtEnd()) return absl::InvalidArgumentError("syntax error: missing '}'");
    char op = in_[pos_++];
    if (op == '}') {
      out += Get(name).value_or("");
      return absl::OkStatus();
    }
    bool null_is_unset = false;
    std::string modifier(1, op);
    if (op == ':') {
      if (AtEnd()) return absl::InvalidArgumentError("syntax error: missing '}'");
      null_is_unset = true;
      op = in_[pos_++];
      modifier += op;
    }
    if (op != '-' && op != '+' && op != '?') {
      std::string hint = (op == '#' || op == '%' || op == '/')
                             ? "; trainpkg supports only - + and ? (with or without ':')"
                             : "";
      return absl::InvalidArgumentError(
          fmt::format("unsupported modifier ({}) in substitution of '{}'{}", modifier, name, hint));
    }
    std::string word;
    if (absl::Status s = Until('}', word); !s.ok()) return s;
    std::optional<std::string> value = Get(name);
    bool unset = !value.has_value() || (null_is_unset && value->empty());
    switch (op) {
      case '-':
        out += unset ? word : *value;
        break;
      case '+':
        out += unset ? "" : word;
        break;
      default:  // '?'
        // Without a lookup (CheckWordSyntax) only the syntax is checked: a
        // ${VAR?} must not fail before the variables are known.
        if (unset && lookup_ != nullptr) {
          std::string message = !word.empty()       ? word
                                : value.has_value() ? "is not allowed to be empty"
                                                    : "is not allowed to be unset";
          return absl::InvalidArgumentError(fmt::format("{}: {}", name, message));
        }
        out += value.value_or("");
    }
    return absl::OkStatus();
  }

  std::string_view in_;
  size_t pos_ = 0;
  const VarLookup* lookup_;
  char escape_;
};

}  // namespace

absl::StatusOr<std::string> ExpandWord(std::string_view word, const VarLookup& lookup,
                                       char escape) {
  return Lexer(word, &lookup, escape).Word();
}

absl::StatusOr<std::string> ExpandHeredocBody(std::string_view body, const VarLookup& lookup,
                                              char escape) {
  return Lexer(body, &lookup, escape).HeredocBody();
}

absl::Status CheckWordSyntax(std::string_view word, char escape) {
  return Lexer(word, nullptr, escape).Word().status();
}

}  // namespace trainpkg::packager::dockerfile
