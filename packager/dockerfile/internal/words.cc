#include "packager/dockerfile/internal/words.h"

namespace trainpkg::packager::dockerfile::internal {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && IsSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && IsSpace(s.back())) s.remove_suffix(1);
  return s;
}

namespace {

// Reads one flag word starting at `pos` (which is at "--"); quotes removed,
// backslash escapes the next character. Advances `pos` past the word.
std::string ReadFlagWord(std::string_view s, size_t& pos) {
  std::string word;
  char quote = 0;
  while (pos < s.size()) {
    char c = s[pos];
    if (quote == 0 && IsSpace(c)) break;
    ++pos;
    if (quote == 0 && (c == '\'' || c == '"')) {
      quote = c;
      continue;
    }
    if (quote != 0 && c == quote) {
      quote = 0;
      continue;
    }
    if (c == '\\') {
      if (pos == s.size()) break;
      c = s[pos++];
    }
    word += c;
  }
  return word;
}

}  // namespace

CommandSplit SplitCommand(std::string_view line) {
  CommandSplit out;
  line = Trim(line);
  size_t pos = 0;
  while (pos < line.size() && !IsSpace(line[pos])) ++pos;
  out.keyword = std::string(line.substr(0, pos));
  while (true) {
    while (pos < line.size() && IsSpace(line[pos])) ++pos;
    if (line.substr(pos, 2) != "--") break;
    std::string word = ReadFlagWord(line, pos);
    if (word == "--") {
      while (pos < line.size() && IsSpace(line[pos])) ++pos;
      break;
    }
    out.flags.push_back(std::move(word));
  }
  out.rest = std::string(line.substr(pos));
  return out;
}

std::vector<std::string> SplitWordsKeepingQuotes(std::string_view rest, char escape) {
  std::vector<std::string> words;
  std::string word;
  bool in_word = false;
  bool blank_ok = false;  // a quoted "" is a word even though empty
  char quote = 0;
  for (size_t pos = 0; pos < rest.size(); ++pos) {
    char c = rest[pos];
    if (quote == 0 && IsSpace(c)) {
      if (in_word && (blank_ok || !word.empty())) words.push_back(word);
      word.clear();
      in_word = false;
      blank_ok = false;
      continue;
    }
    in_word = true;
    if (quote == 0 && (c == '\'' || c == '"')) {
      quote = c;
      blank_ok = true;
    } else if (quote != 0 && c == quote) {
      quote = 0;
    } else if (c == escape && quote != '\'') {
      if (pos + 1 == rest.size()) {
        if (quote != 0) quote = 0;
        continue;  // an escape at the very end is dropped
      }
      word += c;
      c = rest[++pos];
    }
    word += c;
  }
  if (in_word && (blank_ok || !word.empty())) words.push_back(word);
  return words;
}

std::vector<std::string> SplitWhitespace(std::string_view rest) {
  std::vector<std::string> words;
  size_t pos = 0;
  while (pos < rest.size()) {
    while (pos < rest.size() && IsSpace(rest[pos])) ++pos;
    size_t start = pos;
    while (pos < rest.size() && !IsSpace(rest[pos])) ++pos;
    if (pos > start) words.emplace_back(rest.substr(start, pos - start));
  }
  return words;
}

}  // namespace trainpkg::packager::dockerfile::internal
