// Word-level splitting of an instruction line, as BuildKit's parser does it.
#ifndef TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_WORDS_H_
#define TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_WORDS_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace trainpkg::packager::dockerfile::internal {

struct CommandSplit {
  std::string keyword;             // as written (case kept)
  std::vector<std::string> flags;  // leading `--name[=value]` words, quotes removed
  std::string rest;                // the arguments after the flags
};

// Splits "KEYWORD [--flag...] rest". A lone `--` ends the flags.
CommandSplit SplitCommand(std::string_view line);

// Whitespace-separated words that keep quotes and escapes as written (quoted
// spaces do not split): the input of ENV/LABEL/ARG name=value parsing.
std::vector<std::string> SplitWordsKeepingQuotes(std::string_view rest, char escape);

// Plain whitespace split (FROM, EXPOSE, COPY/ADD/VOLUME shell form).
std::vector<std::string> SplitWhitespace(std::string_view rest);

bool IsSpace(char c);
std::string_view Trim(std::string_view s);

}  // namespace trainpkg::packager::dockerfile::internal

#endif  // TRAINPKG_PACKAGER_DOCKERFILE_INTERNAL_WORDS_H_
