// local.json of the job store (sdk/local_job_details.h): what trainpkg
// writes reads back the same, and a record of the wrong shape (hand-edited,
// corrupt, planted) is an InvalidArgument naming the field, never a
// json::type_error or a number cast out of its range.
#include "sdk/local_job_details.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;

TEST(LocalJobDetailsTest, RoundTrips) {
  LocalJobDetails details;
  details.supervisor = {.pid = 41, .start_time = 12345};
  details.replicas.push_back(ReplicaDetails{.name = "workerpool0-0",
                                            .pid = 42,
                                            .pgid = 42,
                                            .start_time = 12346,
                                            .address = "127.0.0.1:4000",
                                            .argv = {"/bin/trainer", "--epochs=1"},
                                            .container_id = "c1",
                                            .host = "node2",
                                            .exit_status = ExitStatus{.code = 0, .signal = 9},
                                            .restarts = 2});
  ReplicaDetails starting;
  starting.name = "workerpool1-0";
  details.replicas.push_back(starting);
  absl::StatusOr<LocalJobDetails> read = ParseLocalJobDetails(FormatLocalJobDetails(details));
  ASSERT_THAT(read, IsOk());
  EXPECT_EQ(*read, details);
}

// Every wrong shape names its field, says what was expected and what was
// there.
TEST(LocalJobDetailsTest, FieldsOfTheWrongTypeAreNamed) {
  const std::string supervisor = R"("supervisor": {"pid": 1, "startTime": 2})";
  const struct {
    std::string text;
    std::string message;
  } cases[] = {
      {"[1]", "the document: expected an object, got a list [1]"},
      {"{}", "supervisor: missing"},
      {"{" + supervisor + R"(, "replicas": [{"name": "w", "restarts": -1}]})",
       "replicas[0].restarts: expected a whole number from 0 to 2147483647, got the number -1"},
      {R"({"supervisor": {"pid": "1", "startTime": 2}})",
       "supervisor.pid: expected a whole number from 0 to 2147483647, got the string \"1\""},
      {"{" + supervisor + R"(, "replicas": {"name": "w"}})",
       R"(replicas: expected a list, got an object {"name":"w"})"},
      {"{" + supervisor + R"(, "replicas": [{"name": "w", "address": 5}]})",
       "replicas[0].address: expected a string, got the number 5"},
      {"{" + supervisor + R"(, "replicas": [{"name": "w"}, {"name": 7}]})",
       "replicas[1].name: expected a string, got the number 7"},
      {"{" + supervisor + R"(, "replicas": [{"name": "w", "argv": ["a", null]}]})",
       "replicas[0].argv[1]: expected a string, got null"},
      {"{" + supervisor + R"(, "replicas": [{"name": "w", "containerId": {}}]})",
       "replicas[0].containerId: expected a string, got an object {}"},
      {"{" + supervisor + R"(, "replicas": [{"name": "w", "exitStatus": 3}]})",
       "replicas[0].exitStatus: expected an object, got the number 3"},
      // Numbers outside the field's range: a pgid of 2^32 + 1 must not become 1.
      {"{" + supervisor + R"(, "replicas": [{"name": "w", "pgid": 4294967297}]})",
       "replicas[0].pgid: expected a whole number from 0 to 2147483647, got the number "
       "4294967297"},
      {"{" + supervisor + R"(, "replicas": [{"name": "w", "pid": 1e300}]})",
       "replicas[0].pid: expected a whole number from 0 to 2147483647, got the number 1e+300"},
      {R"({"supervisor": {"pid": 1, "startTime": -2}})",
       "supervisor.startTime: expected a whole number from 0 to 18446744073709551615, got the "
       "number -2"},
  };
  for (const auto& c : cases) {
    absl::StatusOr<LocalJobDetails> read = ParseLocalJobDetails(c.text);
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument) << c.text;
    EXPECT_EQ(std::string(read.status().message()), "local job details: " + c.message) << c.text;
  }
}

TEST(LocalJobDetailsTest, TextThatIsNotJsonSaysSo) {
  absl::StatusOr<LocalJobDetails> read = ParseLocalJobDetails("{\"supervisor\": ");
  EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(read.status().message()), HasSubstr("local job details: invalid JSON: "));
}

}  // namespace
}  // namespace trainpkg::sdk
