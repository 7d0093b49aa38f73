#include "base/terminal_text.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"

namespace trainpkg::base {
namespace {

TEST(TerminalSafeTest, KeepsPrintableUtf8AndBackslashes) {
  EXPECT_EQ(TerminalSafe("résumé 東京 🚀 a\\b"), "résumé 東京 🚀 a\\b");
  EXPECT_EQ(TerminalSafe(""), "");
}

TEST(TerminalSafeTest, EscapesTheScreenClearingDisplayName) {
  EXPECT_EQ(TerminalSafe("\x1b[2J\x1b[Hpwned"), "\\x1b[2J\\x1b[Hpwned");
  EXPECT_EQ(TerminalSafe("\x1b]0;title\x07"), "\\x1b]0;title\\x07");
  EXPECT_EQ(TerminalSafe(std::string_view("a\0b", 3)), "a\\x00b");
  EXPECT_EQ(TerminalSafe("del\x7f"), "del\\x7f");
}

TEST(TerminalSafeTest, OneLineFieldsEscapeNewlinesAndTabs) {
  EXPECT_EQ(TerminalSafe("line one\nline two\tcol\r"), "line one\\nline two\\tcol\\r");
  EXPECT_EQ(TerminalSafe("line one\nline two\tcol\r", TextLayout::kMultiLine),
            "line one\nline two\tcol\\r");
}

TEST(TerminalSafeTest, EscapesC1ControlsAndInvalidUtf8) {
  EXPECT_EQ(TerminalSafe("\xc2\x9b"
                         "31m"),
            "\\u009b31m");  // CSI as a code point
  EXPECT_EQ(TerminalSafe("\xc2\x80\xc2\x9f\xc2\xa0"), "\\u0080\\u009f\xc2\xa0");
  EXPECT_EQ(TerminalSafe("\x9b"
                         "2J"),
            "\\x9b2J");                                                 // a lone continuation byte
  EXPECT_EQ(TerminalSafe("\xc0\xaf"), "\\xc0\\xaf");                    // overlong '/'
  EXPECT_EQ(TerminalSafe("\xed\xa0\x80"), "\\xed\\xa0\\x80");           // a surrogate
  EXPECT_EQ(TerminalSafe("\xf4\x90\x80\x80"), "\\xf4\\x90\\x80\\x80");  // > U+10FFFF
  EXPECT_EQ(TerminalSafe("ab\xe6\x9d"), "ab\\xe6\\x9d");                // truncated
  EXPECT_EQ(TerminalSafe("\xff\x1b"), "\\xff\\x1b");
}

TEST(TerminalSafeTest, EscapingTwiceChangesNothing) {
  const std::string once = TerminalSafe("\x1b[2J\n\xc2\x9b\xff ok", TextLayout::kMultiLine);
  EXPECT_EQ(TerminalSafe(once, TextLayout::kMultiLine), once);
  EXPECT_EQ(TerminalSafe(TerminalSafe("\n\t\x1b")), TerminalSafe("\n\t\x1b"));
}

TEST(TerminalSafeTest, JsonLayoutKeepsTheJsonValid) {
  nlohmann::json job = {{"displayName",
                         "\x1b[2J\x7f\xc2\x9b"
                         "x"},
                        {"n", 1}};
  const std::string dumped = job.dump(2);
  const std::string safe = TerminalSafe(dumped, TextLayout::kJson);
  EXPECT_EQ(safe.find('\x1b'), std::string::npos);
  EXPECT_EQ(safe.find('\x7f'), std::string::npos);
  EXPECT_EQ(safe.find("\xc2\x9b"), std::string::npos);
  EXPECT_THAT(safe, ::testing::HasSubstr("\\u001b[2J\\u007f\\u009bx"));
  EXPECT_EQ(nlohmann::json::parse(safe), job);  // same values, layout kept
  EXPECT_EQ(TerminalSafe("\"a\xff\"", TextLayout::kJson), "\"a\\ufffd\"");
}

}  // namespace
}  // namespace trainpkg::base
