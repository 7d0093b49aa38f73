#include "base/json_describe.h"

#include <string>

#include "gtest/gtest.h"

namespace trainpkg::base {
namespace {

using nlohmann::json;

TEST(DescribeJsonTest, NamesTheTypeAndShowsTheValue) {
  EXPECT_EQ(DescribeJson(json(nullptr)), "null");
  EXPECT_EQ(DescribeJson(json(true)), "the boolean true");
  EXPECT_EQ(DescribeJson(json(10)), "the number 10");
  EXPECT_EQ(DescribeJson(json(2.5)), "the number 2.5");
  EXPECT_EQ(DescribeJson(json("n1")), "the string \"n1\"");
  EXPECT_EQ(DescribeJson(json::array({1, "a"})), "a list [1,\"a\"]");
  EXPECT_EQ(DescribeJson(json::object()), "an object {}");
  EXPECT_EQ(DescribeJson(json{{"a", {{"b", 1}}}}), "an object {\"a\":{\"b\":1}}");
}

TEST(JsonExcerptTest, WritesCompactJsonLikeDump) {
  json value = json::parse(R"({"a": [1, 2.5, "x\n", null, false], "b": {}})");
  EXPECT_EQ(JsonExcerpt(value), value.dump());
}

TEST(JsonExcerptTest, CutsLongValuesWithoutWritingThemWhole) {
  EXPECT_EQ(JsonExcerpt(json(std::string(1 << 20, 'x')), 5), "\"xxxx...");
  json list = json::array();
  for (int i = 0; i < 100000; ++i) list.push_back(i);
  EXPECT_EQ(JsonExcerpt(list, 10), "[0,1,2,3,4...");
  json keyed = json::object({{std::string(1000, 'k'), 1}});
  EXPECT_EQ(JsonExcerpt(keyed, 6), "{\"kkkk...");
}

TEST(JsonExcerptTest, ElidesDeepNesting) {
  json deep = 1;
  for (int i = 0; i < 100; ++i) deep = json::array({deep});
  EXPECT_EQ(JsonExcerpt(deep), "[[[[[...]]]]]");
  EXPECT_EQ(JsonExcerpt(json::array({json::array({json::array({json::array({json::array()})})})})),
            "[[[[[]]]]]");
}

}  // namespace
}  // namespace trainpkg::base
