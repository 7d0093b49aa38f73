#include "base/json_object_reader.h"

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::base {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::Pair;
using Json = nlohmann::json;

std::string Message(const absl::Status& status) { return std::string(status.message()); }

TEST(JsonObjectReaderTest, PathsNameFieldsAndElements) {
  EXPECT_EQ(FieldPath("", "jobSpec"), "jobSpec");
  EXPECT_EQ(FieldPath("jobSpec", "workerPoolSpecs"), "jobSpec.workerPoolSpecs");
  EXPECT_EQ(IndexPath("jobSpec.workerPoolSpecs", 0), "jobSpec.workerPoolSpecs[0]");
  EXPECT_EQ(Message(FieldError("", "bad")), "bad");
  EXPECT_EQ(Message(FieldError("a.b", "bad")), "a.b: bad");
  EXPECT_EQ(FieldError("a", "bad").code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(Message(kProto3Json.Error("", "bad")), "(top level): bad");
  EXPECT_EQ(Message(kPlainJson.Error("", "bad")), "bad");
}

TEST(JsonObjectReaderTest, NestedReadsNameTheWholePath) {
  const Json json =
      Json::parse(R"({"jobSpec":{"workerPoolSpecs":[{"machineSpec":{"machineType":7}}]}})");
  absl::StatusOr<JsonObjectReader> top = JsonObjectReader::Create(json, "", kProto3Json);
  ASSERT_THAT(top, IsOk());
  absl::StatusOr<JsonObjectReader> job =
      JsonObjectReader::Create(*top->Find("jobSpec"), top->PathOf("jobSpec"), kProto3Json);
  ASSERT_THAT(job, IsOk());
  absl::Status status = job->ForEachElement(
      "workerPoolSpecs", [](const Json& pool, const std::string& path) -> absl::Status {
        absl::StatusOr<JsonObjectReader> reader =
            JsonObjectReader::Create(pool["machineSpec"], FieldPath(path, "machineSpec"),
                                     kProto3Json, JsonFields{.known = {"machineType"}});
        if (!reader.ok()) return reader.status();
        std::string type;
        return reader->ReadString("machineType", &type);
      });
  EXPECT_EQ(Message(status),
            "jobSpec.workerPoolSpecs[0].machineSpec.machineType: expected a string, got the "
            "number 7 (quote it: \"7\")");
}

TEST(JsonObjectReaderTest, NullReadsAsAbsentAndLeavesTheOutputAlone) {
  const Json json = Json::parse(R"({"s":null,"n":null,"l":null,"m":null,"b":null})");
  for (const JsonDialect* dialect : {&kPlainJson, &kProto3Json}) {
    absl::StatusOr<JsonObjectReader> reader = JsonObjectReader::Create(json, "x", *dialect);
    ASSERT_THAT(reader, IsOk());
    std::string s = "kept";
    int64_t n = 5;
    bool b = true;
    std::vector<std::string> l = {"kept"};
    std::map<std::string, std::string> m = {{"k", "v"}};
    EXPECT_THAT(reader->ReadString("s", &s), IsOk());
    EXPECT_THAT(reader->ReadInt64("n", &n), IsOk());
    EXPECT_THAT(reader->ReadBool("b", &b), IsOk());
    EXPECT_THAT(reader->ReadStringList("l", &l), IsOk());
    EXPECT_THAT(reader->ReadStringMap("m", &m), IsOk());
    EXPECT_EQ(s, "kept");
    EXPECT_EQ(n, 5);
    EXPECT_TRUE(b);
    EXPECT_THAT(l, ElementsAre("kept"));
    EXPECT_EQ(reader->Find("s"), nullptr);
    EXPECT_EQ(Message(reader->Require("s")), "x.s: required field is missing");
  }
}

TEST(JsonObjectReaderTest, PlainJsonIntegersAreJsonIntegers) {
  const Json json = Json::parse(
      R"({"size":"6","big":9223372036854775808,"half":1.5,"max":9223372036854775807,"neg":-3})");
  absl::StatusOr<JsonObjectReader> reader = JsonObjectReader::Create(json, "config", kPlainJson);
  ASSERT_THAT(reader, IsOk());
  int64_t value = 0;
  EXPECT_EQ(Message(reader->ReadInt64("size", &value)),
            "config.size: expected an integer, got \"6\"");
  EXPECT_EQ(Message(reader->ReadInt64("big", &value)),
            "config.big: 9223372036854775808 does not fit in int64");
  EXPECT_EQ(Message(reader->ReadInt64("half", &value)),
            "config.half: expected an integer, got 1.5");
  ASSERT_THAT(reader->ReadInt64("max", &value), IsOk());
  EXPECT_EQ(value, INT64_MAX);
  ASSERT_THAT(reader->ReadInt64("neg", &value), IsOk());
  EXPECT_EQ(value, -3);
}

TEST(JsonObjectReaderTest, Proto3IntegersMayBeDigitStringsOrIntegralNumbers) {
  const Json json = Json::parse(
      R"({"a":"-12","b":5.0,"c":"12x","d":"9223372036854775808","e":1e30,"f":2.5,
          "g":"3000000000"})");
  absl::StatusOr<JsonObjectReader> reader = JsonObjectReader::Create(json, "p", kProto3Json);
  ASSERT_THAT(reader, IsOk());
  int64_t value = 0;
  ASSERT_THAT(reader->ReadInt64("a", &value), IsOk());
  EXPECT_EQ(value, -12);
  ASSERT_THAT(reader->ReadInt64("b", &value), IsOk());
  EXPECT_EQ(value, 5);
  EXPECT_EQ(Message(reader->ReadInt64("c", &value)),
            "p.c: expected an integer (number or string of digits), got the string \"12x\"");
  EXPECT_EQ(Message(reader->ReadInt64("d", &value)),
            "p.d: 9223372036854775808 is out of range for a 64-bit integer");
  EXPECT_EQ(Message(reader->ReadInt64("e", &value)),
            "p.e: the number 1e+30 is out of range for a 64-bit integer");
  EXPECT_THAT(Message(reader->ReadInt64("f", &value)), HasSubstr("got the number 2.5"));
  int32_t small = 0;
  EXPECT_EQ(Message(reader->ReadInt32("g", &small)),
            "p.g: 3000000000 is out of range for a 32-bit integer");
}

TEST(JsonObjectReaderTest, ListsMapsAndKeySetsPerDialect) {
  const Json json =
      Json::parse(R"({"l":["a",2],"m":{"k":1},"notlist":{},"notmap":[1],"set":{"80/tcp":{}}})");
  absl::StatusOr<JsonObjectReader> plain = JsonObjectReader::Create(json, "", kPlainJson);
  absl::StatusOr<JsonObjectReader> proto = JsonObjectReader::Create(json, "", kProto3Json);
  ASSERT_TRUE(plain.ok() && proto.ok());
  std::vector<std::string> list;
  std::map<std::string, std::string> map;
  EXPECT_EQ(Message(plain->ReadStringList("l", &list)), "l[1]: expected a string, got 2");
  EXPECT_EQ(Message(proto->ReadStringList("l", &list)),
            "l[1]: expected a string, got the number 2 (quote it: \"2\")");
  EXPECT_EQ(Message(plain->ReadStringList("notlist", &list)), "notlist: expected an array, got {}");
  EXPECT_EQ(Message(proto->ReadStringList("notlist", &list)),
            "notlist: expected a list of strings, got an object {}");
  EXPECT_EQ(Message(plain->ReadStringMap("m", &map)), "m.k: expected a string, got 1");
  EXPECT_EQ(Message(plain->ReadStringMap("notmap", &map)),
            "notmap: expected an object of strings, got [1]");
  EXPECT_EQ(Message(proto->ReadStringMap("notmap", &map)),
            "notmap: expected an object of string values, got a list [1]");
  auto ignore = [](const Json&, const std::string&) { return absl::OkStatus(); };
  EXPECT_EQ(Message(plain->ForEachElement("notlist", ignore)),
            "notlist: expected an array, got {}");
  EXPECT_EQ(Message(proto->ForEachElement("notlist", ignore)),
            "notlist: expected a list, got an object {}");
  std::set<std::string> keys;
  ASSERT_THAT(plain->ReadKeySet("set", &keys), IsOk());
  EXPECT_THAT(keys, ElementsAre("80/tcp"));
  EXPECT_TRUE(list.empty());  // left alone by the failed reads
}

TEST(JsonObjectReaderTest, ErrorsQuoteValuesBoundedly) {
  const Json json = {{"s", Json::array({std::string(500, 'x')})}};
  absl::StatusOr<JsonObjectReader> reader = JsonObjectReader::Create(json, "", kPlainJson);
  ASSERT_THAT(reader, IsOk());
  std::string s;
  const std::string message = Message(reader->ReadString("s", &s));
  EXPECT_THAT(message, HasSubstr("s: expected a string, got [\"xxx"));
  EXPECT_LT(message.size(), 100u);
  EXPECT_EQ(Message(JsonObjectReader::Create(Json::array(), "", kPlainJson).status()),
            "expected an object, got []");
  EXPECT_EQ(Message(JsonObjectReader::Create(Json::array({1}), "", kProto3Json).status()),
            "(top level): expected an object, got a list [1]");
}

TEST(JsonObjectReaderTest, OpenReaderKeepsKeysItDoesNotRead) {
  const Json json = Json::parse(R"({"User":"u","x-vendor":{"a":1},"gone":null})");
  absl::StatusOr<JsonObjectReader> reader = JsonObjectReader::Create(json, "config", kPlainJson);
  ASSERT_THAT(reader, IsOk());
  EXPECT_THAT(reader->Unknown({"User"}),
              ElementsAre(Pair("gone", "null"), Pair("x-vendor", R"({"a":1})")));
}

TEST(JsonObjectReaderTest, ClosedReaderRejectsUnknownFieldsWithASuggestion) {
  const JsonFields fields{.known = {"machineType", "acceleratorCount"},
                          .ignored = {"createTime"},
                          .unsupported = {"tpuTopology"}};
  // Only the status outlives the parsed json here.
  auto create = [&](const char* text) {
    return JsonObjectReader::Create(Json::parse(text), "spec", kProto3Json, fields).status();
  };
  EXPECT_EQ(Message(create(R"({"machineTyp":"n1"})")),
            "spec.machineTyp: unknown field; did you mean 'machineType'?");
  EXPECT_EQ(Message(create(R"({"machine_typ":"n1"})")),
            "spec.machine_typ: unknown field; did you mean 'machine_type'?");
  EXPECT_EQ(Message(create(R"({"zzz":1})")),
            "spec.zzz: unknown field; valid fields: machineType, acceleratorCount");
  EXPECT_EQ(Message(create(R"({"tpu_topology":"2x2"})")),
            "spec.tpuTopology: this field is not supported; remove it");
  EXPECT_EQ(Message(create(R"({"machineType":"a","machine_type":"b"})")),
            "spec.machineType: given twice, as 'machineType' and as 'machine_type'; keep one");
  const Json json =
      Json::parse(R"({"machine_type":"n1","accelerator_count":"2","createTime":"x"})");
  absl::StatusOr<JsonObjectReader> reader =
      JsonObjectReader::Create(json, "spec", kProto3Json, fields);
  ASSERT_THAT(reader, IsOk());
  std::string type;
  int32_t count = 0;
  ASSERT_THAT(reader->ReadString("machineType", &type), IsOk());
  ASSERT_THAT(reader->ReadInt32("acceleratorCount", &count), IsOk());
  EXPECT_EQ(type, "n1");
  EXPECT_EQ(count, 2);
  EXPECT_EQ(reader->Find("createTime"), nullptr);

  const JsonDialect vertex = kProto3Json.WithUnsupportedField("not on this backend");
  EXPECT_EQ(
      Message(JsonObjectReader::Create(Json::parse(R"({"tpuTopology":1})"), "", vertex, fields)
                  .status()),
      "tpuTopology: not on this backend");
}

TEST(JsonObjectReaderTest, PlainJsonHasNoSnakeCaseSpelling) {
  const JsonFields fields{.known = {"mediaType"}};
  EXPECT_EQ(
      Message(JsonObjectReader::Create(Json::parse(R"({"media_type":"x"})"), "", kPlainJson, fields)
                  .status()),
      "media_type: unknown field; did you mean 'mediaType'?");
}

}  // namespace
}  // namespace trainpkg::base
