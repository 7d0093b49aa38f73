#include "base/json_parse.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::base {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

std::string Nested(int depth, std::string_view inner = "1") {
  return std::string(depth, '[') + std::string(inner) + std::string(depth, ']');
}

std::string MessageOf(const absl::Status& status) { return std::string(status.message()); }

TEST(ParseJsonTest, ParsesDocumentsWithinTheLimits) {
  absl::StatusOr<nlohmann::json> json = ParseJson(R"( {"a": [1, 2.5, "x", null, true]} )");
  ASSERT_THAT(json, IsOk());
  EXPECT_EQ((*json)["a"][2], "x");

  absl::StatusOr<nlohmann::json> deepest = ParseJson(Nested(kDefaultMaxJsonDepth));
  ASSERT_THAT(deepest, IsOk());

  absl::StatusOr<nlohmann::ordered_json> ordered =
      ParseJson<nlohmann::ordered_json>(R"({"z": 1, "a": 2})");
  ASSERT_THAT(ordered, IsOk());
  EXPECT_EQ(ordered->begin().key(), "z");
}

TEST(ParseJsonTest, SyntaxErrorsNameLineAndColumn) {
  absl::StatusOr<nlohmann::json> json = ParseJson("{\n  \"a\": 1,\n}");
  EXPECT_EQ(json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(MessageOf(json.status()),
              StartsWith("invalid JSON: parse error at line 3, column 1"));
  // Number overflow is an out_of_range exception in nlohmann, not a parse_error.
  EXPECT_THAT(MessageOf(ParseJson("[1e999]").status()),
              StartsWith("invalid JSON: number overflow"));
}

TEST(ParseJsonTest, NestingPastTheLimitIsRefusedWhereItHappens) {
  absl::StatusOr<nlohmann::json> json = ParseJson(Nested(kDefaultMaxJsonDepth + 1));
  EXPECT_EQ(json.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(MessageOf(json.status()),
            "invalid JSON: arrays and objects nest deeper than the limit of 128 levels at line 1, "
            "column 129");

  // Brackets inside strings do not count; the column is that of the '{'.
  absl::StatusOr<nlohmann::json> objects =
      ParseJson("{\"[\\\"\": [\n {\"a\": {\"b\": 1}}]}", JsonLimits{.max_depth = 3});
  EXPECT_THAT(MessageOf(objects.status()), HasSubstr("limit of 3 levels at line 2, column 8"));
}

TEST(ParseJsonTest, TextPastTheSizeLimitIsRefusedBeforeParsing) {
  absl::StatusOr<nlohmann::json> json = ParseJson("[1, 2, 3]", JsonLimits{.max_bytes = 8});
  EXPECT_EQ(MessageOf(json.status()), "invalid JSON: the text is 9 bytes; the limit is 8 bytes");
}

// The attack of issue #16 finding 3: 200000 nested arrays crashed every
// recursive use of the parsed value. Now: a clear error, bounded memory.
TEST(ParseJsonTest, DeeplyNestedDocumentEndsWithAnErrorInBoundedMemory) {
  const std::string deep = "{\"displayName\":" + Nested(200000) + "}";
  testing::ChildRun run = testing::RunInChildMeasured(
      [&deep] {
        absl::StatusOr<nlohmann::json> json = ParseJson(deep);
        if (json.ok()) return 1;
        return MessageOf(json.status()).find("limit of 128 levels at line 1, column 143") ==
                       std::string::npos
                   ? 2
                   : 0;
      },
      /*address_space_limit_bytes=*/int64_t{4} << 30);
  EXPECT_EQ(run.signal, 0);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_LE(run.peak_rss_kib, 256 * 1024);
}

}  // namespace
}  // namespace trainpkg::base
