#include "base/closest_match.h"

#include <array>
#include <optional>
#include <string_view>

#include "gtest/gtest.h"

namespace trainpkg::base {
namespace {

constexpr std::array<std::string_view, 6> kCommands = {"build", "push", "pull",
                                                       "run",   "jobs", "images"};

TEST(ClosestMatchTest, TwoSwappedLettersAreOneTypo) {
  EXPECT_EQ(ClosestMatch("bulid", kCommands), "build");
  EXPECT_EQ(ClosestMatch("psuh", kCommands), "push");
}

TEST(ClosestMatchTest, AMissingOrExtraLetterIsFound) {
  EXPECT_EQ(ClosestMatch("buld", kCommands), "build");
  EXPECT_EQ(ClosestMatch("imagess", kCommands), "images");
  constexpr std::array<std::string_view, 3> kVerbs = {"list", "describe", "cancel"};
  EXPECT_EQ(ClosestMatch("lst", kVerbs), "list");
}

TEST(ClosestMatchTest, CaseIsIgnored) { EXPECT_EQ(ClosestMatch("BUILD", kCommands), "build"); }

TEST(ClosestMatchTest, ATruncatedNameGetsTheShortestCandidateItBegins) {
  constexpr std::array<std::string_view, 3> kFields = {"baseOutputDirectory", "base",
                                                       "baseOutputDirectoryUri"};
  EXPECT_EQ(ClosestMatch("baseOutput", kFields), "baseOutputDirectory");
  // Under four characters a prefix says too little: "ba" is not "base".
  EXPECT_EQ(ClosestMatch("ba", std::array<std::string_view, 1>{"baseOutputDirectory"}),
            std::nullopt);
}

TEST(ClosestMatchTest, NothingCloseIsNoSuggestion) {
  EXPECT_EQ(ClosestMatch("deploy", kCommands), std::nullopt);
  EXPECT_EQ(ClosestMatch("", kCommands), std::nullopt);
  EXPECT_EQ(ClosestMatch("build", std::array<std::string_view, 0>{}), std::nullopt);
}

TEST(ClosestMatchTest, TheAllowedDistanceGrowsWithTheLength) {
  constexpr std::array<std::string_view, 1> kLong = {"parameter-server-count"};
  // 22 characters: up to 7 edits.
  EXPECT_EQ(ClosestMatch("paramter-srver-cont", kLong), "parameter-server-count");
  // 3 characters: up to 2.
  EXPECT_EQ(ClosestMatch("xyz", std::array<std::string_view, 1>{"abc"}), std::nullopt);
}

TEST(DidYouMeanTest, SaysTheMatchOrNothing) {
  EXPECT_EQ(DidYouMean("bulid", kCommands), "; did you mean 'build'?");
  EXPECT_EQ(DidYouMean("deploy", kCommands), "");
}

}  // namespace
}  // namespace trainpkg::base
