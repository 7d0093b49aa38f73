#include "sdk/serve/list_filter.h"

#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "fmt/format.h"
#include "jobspec/custom_job_json.h"

namespace trainpkg::sdk::serve {
namespace {

constexpr char kFields[] = "display_name, state, create_time, update_time, labels.KEY";

// '*' matches any run of characters.
bool GlobMatch(std::string_view pattern, std::string_view text) {
  // Backtracks only to the last '*': O(pattern * text) at worst, where a
  // recursive matcher would be exponential on a hostile filter.
  size_t p = 0, t = 0, star = std::string_view::npos, mark = 0;
  while (t < text.size()) {
    if (p < pattern.size() && pattern[p] == '*') {
      star = p++;
      mark = t;
    } else if (p < pattern.size() && pattern[p] == text[t]) {
      ++p;
      ++t;
    } else if (star != std::string_view::npos) {
      p = star + 1;
      t = ++mark;
    } else {
      return false;
    }
  }
  while (p < pattern.size() && pattern[p] == '*') ++p;
  return p == pattern.size();
}

class Lexer {
 public:
  explicit Lexer(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ >= text_.size();
  }
  size_t pos() const { return pos_; }

  // A field name or keyword: letters, digits, '_', '.', '-'.
  std::string Word() {
    SkipSpace();
    size_t start = pos_;
    while (pos_ < text_.size() &&
           (absl::ascii_isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_' ||
            text_[pos_] == '.' || text_[pos_] == '-')) {
      ++pos_;
    }
    return std::string(text_.substr(start, pos_ - start));
  }

  std::string Operator() {
    SkipSpace();
    for (std::string_view op : {"!=", "<=", ">=", "=", ":", "<", ">"}) {
      if (text_.substr(pos_, op.size()) == op) {
        pos_ += op.size();
        return std::string(op);
      }
    }
    return "";
  }

  absl::StatusOr<std::string> Value() {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == '"') {
      std::string value;
      for (++pos_; pos_ < text_.size(); ++pos_) {
        char c = text_[pos_];
        if (c == '"') {
          ++pos_;
          return value;
        }
        if (c == '\\' && pos_ + 1 < text_.size()) c = text_[++pos_];
        value.push_back(c);
      }
      return absl::InvalidArgumentError(
          fmt::format("filter: at {}: unterminated quoted value", pos_ + 1));
    }
    size_t start = pos_;
    while (pos_ < text_.size() && !absl::ascii_isspace(static_cast<unsigned char>(text_[pos_]))) {
      ++pos_;
    }
    if (start == pos_) {
      return absl::InvalidArgumentError(fmt::format("filter: at {}: expected a value", pos_ + 1));
    }
    return std::string(text_.substr(start, pos_ - start));
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

std::optional<absl::Time> JobTime(const jobspec::CustomJob& job, std::string_view field) {
  return field == "create_time" ? job.create_time : job.update_time;
}

}  // namespace

absl::StatusOr<ListFilter> ListFilter::Parse(std::string_view text) {
  ListFilter filter;
  Lexer lexer(text);
  while (!lexer.AtEnd()) {
    if (!filter.terms_.empty()) {
      size_t at = lexer.pos() + 1;
      if (std::string word = lexer.Word(); word != "AND") {
        return absl::InvalidArgumentError(fmt::format(
            "filter: at {}: expected AND between terms, found \"{}\" (OR is not supported)", at,
            word));
      }
    }
    Term term;
    size_t at = lexer.pos() + 1;
    term.field = lexer.Word();
    if (term.field == "NOT") {
      term.negate = true;
      at = lexer.pos() + 1;
      term.field = lexer.Word();
    }
    // The proto3 JSON names work too.
    if (term.field == "displayName") term.field = "display_name";
    if (term.field == "createTime") term.field = "create_time";
    if (term.field == "updateTime") term.field = "update_time";
    bool is_label = absl::StartsWith(term.field, "labels.") && term.field.size() > 7;
    bool is_time = term.field == "create_time" || term.field == "update_time";
    if (!is_label && !is_time && term.field != "display_name" && term.field != "state") {
      return absl::InvalidArgumentError(
          fmt::format("filter: at {}: unknown field \"{}\"; valid: {}", at, term.field, kFields));
    }
    at = lexer.pos() + 1;
    std::string op = lexer.Operator();
    if (op == "=")
      term.op = Op::kEq;
    else if (op == "!=")
      term.op = Op::kNe;
    else if (op == ":")
      term.op = Op::kHas;
    else if (op == "<")
      term.op = Op::kLt;
    else if (op == "<=")
      term.op = Op::kLe;
    else if (op == ">")
      term.op = Op::kGt;
    else if (op == ">=")
      term.op = Op::kGe;
    else {
      return absl::InvalidArgumentError(fmt::format(
          "filter: at {}: expected an operator (=, !=, :, <, <=, >, >=) after {}", at, term.field));
    }
    bool ordered =
        term.op == Op::kLt || term.op == Op::kLe || term.op == Op::kGt || term.op == Op::kGe;
    if ((term.field == "state" && (ordered || term.op == Op::kHas)) ||
        ((term.field == "display_name" || is_label) && ordered) ||
        (is_time && term.op == Op::kHas)) {
      return absl::InvalidArgumentError(
          fmt::format("filter: at {}: operator {} does not apply to {}", at, op, term.field));
    }
    at = lexer.pos() + 1;
    absl::StatusOr<std::string> value = lexer.Value();
    if (!value.ok()) return value.status();
    term.value = *std::move(value);
    if (term.field == "state") {
      absl::StatusOr<jobspec::JobState> state = jobspec::ParseJobState(term.value);
      if (!state.ok()) {
        return absl::InvalidArgumentError(
            fmt::format("filter: at {}: {}", at, std::string(state.status().message())));
      }
      term.state = *state;
    }
    if (is_time) {
      absl::StatusOr<absl::Time> time = jobspec::ParseTimestamp(term.value);
      if (!time.ok()) {
        return absl::InvalidArgumentError(
            fmt::format("filter: at {}: {}", at, std::string(time.status().message())));
      }
      term.time = *time;
    }
    filter.terms_.push_back(std::move(term));
  }
  return filter;
}

bool ListFilter::TermMatches(const Term& term, const jobspec::CustomJob& job) {
  if (term.field == "state") {
    return (job.state == term.state) == (term.op == Op::kEq);
  }
  if (term.field == "create_time" || term.field == "update_time") {
    std::optional<absl::Time> time = JobTime(job, term.field);
    if (!time.has_value()) return false;
    switch (term.op) {
      case Op::kEq:
        return *time == term.time;
      case Op::kNe:
        return *time != term.time;
      case Op::kLt:
        return *time < term.time;
      case Op::kLe:
        return *time <= term.time;
      case Op::kGt:
        return *time > term.time;
      case Op::kGe:
        return *time >= term.time;
      case Op::kHas:
        return false;
    }
  }
  std::optional<std::string> actual;
  if (term.field == "display_name") {
    actual = job.display_name;
  } else if (auto it = job.labels.find(term.field.substr(7)); it != job.labels.end()) {
    actual = it->second;
  }
  switch (term.op) {
    case Op::kEq:
      return actual.has_value() && *actual == term.value;
    case Op::kNe:
      return !actual.has_value() || *actual != term.value;
    case Op::kHas:
      if (!actual.has_value()) return false;
      return absl::StrContains(term.value, "*") ? GlobMatch(term.value, *actual)
                                                : absl::StrContains(*actual, term.value);
    default:
      return false;
  }
}

bool ListFilter::Matches(const jobspec::CustomJob& job) const {
  for (const Term& term : terms_) {
    if (TermMatches(term, job) == term.negate) return false;
  }
  return true;
}

}  // namespace trainpkg::sdk::serve
