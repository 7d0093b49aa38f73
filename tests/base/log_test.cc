#include "base/log.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace trainpkg::base {
namespace {

class CaptureSink : public LogSink {
 public:
  void Write(LogLevel level, std::string_view line) override {
    levels.push_back(level);
    lines.emplace_back(line);
  }
  std::vector<LogLevel> levels;
  std::vector<std::string> lines;
};

class LogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    saved_ = GetLogLevel();
    SetLogSink(&sink_);
  }
  void TearDown() override {
    SetLogSink(nullptr);
    SetLogLevel(saved_);
  }
  CaptureSink sink_;
  LogLevel saved_ = LogLevel::kWARNING;
};

TEST_F(LogTest, FiltersBelowThreshold) {
  SetLogLevel(LogLevel::kWARNING);
  TP_LOG(INFO, "hidden {}", 1);
  TP_LOG(WARNING, "shown {}", 2);
  TP_LOG(ERROR, "also shown");
  ASSERT_EQ(sink_.lines.size(), 2u);
  EXPECT_EQ(sink_.levels[0], LogLevel::kWARNING);
  EXPECT_EQ(sink_.levels[1], LogLevel::kERROR);
}

TEST_F(LogTest, LineNamesLevelFileAndMessage) {
  SetLogLevel(LogLevel::kDEBUG);
  TP_LOG(DEBUG, "value={}", 42);
  ASSERT_EQ(sink_.lines.size(), 1u);
  const std::string& line = sink_.lines[0];
  EXPECT_EQ(line.front(), 'D');
  EXPECT_NE(line.find("log_test.cc:"), std::string::npos) << line;
  EXPECT_NE(line.find("] value=42"), std::string::npos) << line;
}

TEST_F(LogTest, ArgumentsNotEvaluatedWhenFiltered) {
  SetLogLevel(LogLevel::kERROR);
  int calls = 0;
  auto count = [&calls] { return ++calls; };
  TP_LOG(INFO, "{}", count());
  EXPECT_EQ(calls, 0);
}

TEST(ParseLogLevelTest, AcceptsNamesInAnyCase) {
  EXPECT_EQ(*ParseLogLevel("DEBUG"), LogLevel::kDEBUG);
  EXPECT_EQ(*ParseLogLevel("info"), LogLevel::kINFO);
  EXPECT_EQ(*ParseLogLevel("Warn"), LogLevel::kWARNING);
  EXPECT_EQ(*ParseLogLevel("error"), LogLevel::kERROR);
}

TEST(ParseLogLevelTest, RejectsUnknownAndListsValid) {
  auto level = ParseLogLevel("verbose");
  ASSERT_FALSE(level.ok());
  EXPECT_NE(level.status().message().find("debug, info, warning, error"), std::string::npos);
}

}  // namespace
}  // namespace trainpkg::base
