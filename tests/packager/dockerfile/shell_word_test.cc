// Substitution cases from Docker's documented behaviour (Dockerfile reference,
// "Environment replacement") and BuildKit's shell lexer.
#include "packager/dockerfile/shell_word.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <map>

#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::dockerfile {
namespace {

using ::testing::HasSubstr;

const std::map<std::string, std::string, std::less<>> kVars = {
    {"FOO", "foo"}, {"EMPTY", ""}, {"SP", "a b"}, {"HOME", "/root"}};

std::optional<std::string> Lookup(std::string_view name) {
  auto it = kVars.find(name);
  if (it == kVars.end()) return std::nullopt;
  return it->second;
}

struct Case {
  std::string in;
  std::string out;
};

TEST(ShellWord, DocumentedTable) {
  const Case cases[] = {
      {"$FOO", "foo"},
      {"${FOO}", "foo"},
      {"${FOO}_bar", "foo_bar"},
      {"$FOO_bar", ""},  // the name is FOO_bar
      {"$UNSET", ""},
      {"${UNSET:-def}", "def"},
      {"${EMPTY:-def}", "def"},
      {"${EMPTY-def}", ""},
      {"${UNSET-def}", "def"},
      {"${FOO:-def}", "foo"},
      {"${FOO:+alt}", "alt"},
      {"${EMPTY:+alt}", ""},
      {"${EMPTY+alt}", "alt"},
      {"${UNSET+alt}", ""},
      {"${UNSET:-$FOO/x}", "foo/x"},
      {"${UNSET:-${HOME}/y}", "/root/y"},
      {"${UNSET:-'$FOO'}", "$FOO"},
      {"${FOO?}", "foo"},
      {"\\$FOO", "$FOO"},
      {"\\${FOO}", "${FOO}"},
      {"'$FOO'", "$FOO"},
      {"\"$FOO\"", "foo"},
      {"\"\\$FOO\"", "$FOO"},
      {"\"a\\b\"", "a\\b"},
      {"\"a\\\"b\"", "a\"b"},
      {"\"$SP\"", "a b"},
      {"a\\ b", "a b"},
      {"\"'\"", "'"},
      {"'\"'", "\""},
      {"$", "$"},
      {"a$", "a$"},
      {"$/x", "$/x"},
      {"$1", ""},
      {"foo\\", "foo"},
      {"${FOO}${FOO}", "foofoo"},
      {"abc", "abc"},
      {"", ""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<std::string> got = ExpandWord(c.in, Lookup);
    ASSERT_THAT(got, IsOk()) << c.in;
    EXPECT_EQ(*got, c.out) << "input: " << c.in;
  }
}

TEST(ShellWord, BacktickEscape) {
  EXPECT_EQ(*ExpandWord("`$FOO", Lookup, '`'), "$FOO");
  EXPECT_EQ(*ExpandWord("C:\\path\\$FOO", Lookup, '`'), "C:\\path\\foo");
}

TEST(ShellWord, Errors) {
  const std::pair<std::string, std::string> cases[] = {
      {"\"abc", "matching double-quote"},
      {"'abc", "matching single-quote"},
      {"${FOO", "missing '}'"},
      {"${", "missing '}'"},
      {"${}", "bad substitution"},
      {"${:-x}", "bad substitution"},
      {"${FOO:-abc", "missing '}'"},
      {"${FOO:x}", "unsupported modifier (:x)"},
      {"${FOO#x}", "trainpkg supports only - + and ?"},
      {"${UNSET?}", "UNSET: is not allowed to be unset"},
      {"${EMPTY:?must set}", "EMPTY: must set"},
      {"${EMPTY:?}", "EMPTY: is not allowed to be empty"},
  };
  for (const auto& [in, want] : cases) {
    absl::StatusOr<std::string> got = ExpandWord(in, Lookup);
    ASSERT_FALSE(got.ok()) << in << " gave " << *got;
    EXPECT_THAT(std::string(got.status().message()), HasSubstr(want)) << in;
  }
}

TEST(ShellWord, SyntaxCheckIgnoresUnsetRequirements) {
  EXPECT_THAT(CheckWordSyntax("${NEEDED?set it}"), IsOk());
  EXPECT_FALSE(CheckWordSyntax("\"x").ok());
}

}  // namespace
}  // namespace trainpkg::packager::dockerfile
