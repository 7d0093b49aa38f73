#include "base/shell_quote.h"

#include <string>

#include "gtest/gtest.h"
#include "tests/test_util/shell.h"

namespace trainpkg::base {
namespace {

TEST(ShellQuoteTest, WrapsInSingleQuotesAndEscapesThem) {
  EXPECT_EQ(ShellQuote(""), "''");
  EXPECT_EQ(ShellQuote("plain"), "'plain'");
  EXPECT_EQ(ShellQuote("it's"), "'it'\\''s'");
  EXPECT_EQ(ShellQuote("''"), "''\\'''\\'''");
}

TEST(ShellQuoteTest, ShReadsBackEveryByteUnchanged) {
  // What sh would expand, split or end a word on, and bytes past ASCII.
  const std::string hostile =
      "a b\t$HOME `id` $(id) \"q\" 'q' \\ * ? [x] ~ ; | & < > # \n!%{}\x01\x7f\xc3\xa9";
  testing::ShellResult result = testing::Sh("printf '%s' " + ShellQuote(hostile));
  ASSERT_EQ(result.code, 0) << result.out;
  EXPECT_EQ(result.out, hostile);
}

}  // namespace
}  // namespace trainpkg::base
