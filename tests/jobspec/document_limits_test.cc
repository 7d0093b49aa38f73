// Hostile job documents (issue #16 findings 3, 4 and 13): each ends with a
// clear error in bounded memory. The attacks run in a child process under an
// address-space limit, so a regression fails the test instead of crashing it
// or exhausting the machine.
#include <cstdio>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "jobspec/custom_job_json.h"
#include "jobspec/hyperparameter_tuning_job_file.h"
#include "jobspec/hyperparameter_tuning_job_json.h"
#include "jobspec/job_file.h"
#include "jobspec/validation.h"
#include "tests/test_util/attack_documents.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::jobspec {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kAddressSpaceLimit = int64_t{4} << 30;
constexpr int64_t kMaxPeakRssKib = 256 * 1024;

using testing::BillionLaughsYaml;
using testing::DeepJsonJob;

// Runs `parse` in a child: exit 0 when it failed with a message holding
// every one of `parts`, 1 when it succeeded, 2 when the message differs.
template <typename Parse>
testing::ChildRun ExpectRefused(Parse parse, std::vector<std::string> parts) {
  return testing::RunInChildMeasured(
      [&] {
        absl::Status status = parse().status();
        if (status.ok()) return 1;
        const std::string message(status.message());
        for (const std::string& part : parts) {
          if (message.find(part) == std::string::npos) {
            std::fprintf(stderr, "message: %s\n", message.c_str());
            return 2;
          }
        }
        return 0;
      },
      kAddressSpaceLimit);
}

void ExpectCleanRefusal(const testing::ChildRun& run) {
  EXPECT_EQ(run.signal, 0);
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
}

// Finding 3: what `trainpkg serve` does with a request body, and what a job
// file or a tuning job file goes through.
TEST(DocumentLimitsTest, DeeplyNestedJsonIsRefusedByEveryJobReader) {
  const std::string deep = DeepJsonJob();
  ExpectCleanRefusal(ExpectRefused([&] { return ParseCustomJobJson(deep); },
                                   {"invalid JSON: ", "limit of 128 levels at line 1"}));
  ExpectCleanRefusal(ExpectRefused([&] { return ParseHyperparameterTuningJobJson(deep); },
                                   {"invalid JSON: ", "limit of 128 levels"}));
  // A job file that is not JSON is read as YAML, which has the same limit.
  ExpectCleanRefusal(ExpectRefused([&] { return ParseJobFile(deep); },
                                   {"invalid YAML at line 1", "limit of 128 levels"}));
  ExpectCleanRefusal(ExpectRefused([&] { return ParseHyperparameterTuningJobFile(deep); },
                                   {"invalid YAML at line 1", "limit of 128 levels"}));
}

TEST(DocumentLimitsTest, BadValuesAreDescribedByTypeAndAShortExcerpt) {
  // 100 levels is within the limit; the message shows only a few of them.
  const std::string nested = std::string(100, '[') + std::string(100, ']');
  absl::StatusOr<CustomJob> job = ParseCustomJobJson("{\"displayName\": " + nested + "}");
  EXPECT_EQ(std::string(job.status().message()),
            "displayName: expected a string, got a list [[[[[...]]]]]");
}

// Finding 13: an alias inside the node it names was an infinite tree.
TEST(DocumentLimitsTest, YamlCyclicAliasIsRefused) {
  ExpectCleanRefusal(ExpectRefused([] { return YamlToJson("a: &loop [1, *loop]\n"); },
                                   {"invalid YAML at line 1, column 14: the alias *loop refers to "
                                    "a node that contains it (a cycle)"}));
  ExpectCleanRefusal(
      ExpectRefused([] { return ParseJobFile("displayName: x\njobSpec: &spec {a: *spec}\n"); },
                    {"invalid YAML at line 2", "*spec", "(a cycle)"}));
}

// Finding 13: 600 bytes that expand to 9^9 strings (> 1.9 GB before the fix).
TEST(DocumentLimitsTest, YamlBillionLaughsIsRefusedInBoundedMemory) {
  const std::string yaml = BillionLaughsYaml();
  ASSERT_LT(yaml.size(), 700u);
  ExpectCleanRefusal(
      ExpectRefused([&] { return YamlToJson(yaml); }, {"invalid YAML at line",
                                                       "more than 100000 values once its "
                                                       "aliases are expanded"}));
  ExpectCleanRefusal(ExpectRefused([&] { return ParseHyperparameterTuningJobFile(yaml); },
                                   {"more than 100000 values"}));
}

TEST(DocumentLimitsTest, YamlAliasesWithinTheLimitsStillWork) {
  absl::StatusOr<nlohmann::json> json = YamlToJson(
      "base: &base {machineType: n1-standard-4, tags: [a, b]}\n"
      "pools: [*base, *base]\n"
      "&k key: value\n"
      "*k : again\n");
  ASSERT_FALSE(json.ok());  // the same key twice
  EXPECT_THAT(std::string(json.status().message()), HasSubstr("duplicate key 'key'"));

  json = YamlToJson(
      "base: &base {machineType: n1-standard-4, tags: [a, b]}\n"
      "pools: [*base, *base]\n"
      "name: &n 2\n"
      "copy: *n\n");
  ASSERT_THAT(json, IsOk());
  EXPECT_EQ((*json)["pools"][1]["tags"][1], "b");
  EXPECT_EQ((*json)["copy"], 2);
}

TEST(DocumentLimitsTest, YamlNestingPastTheLimitIsRefused) {
  const std::string deep = std::string(129, '[') + std::string(129, ']');
  absl::StatusOr<nlohmann::json> json = YamlToJson(deep);
  EXPECT_EQ(std::string(json.status().message()),
            "invalid YAML at line 1, column 129: sequences and mappings nest deeper than the "
            "limit of 128 levels");
  EXPECT_THAT(YamlToJson(std::string(128, '[') + std::string(128, ']')), IsOk());
  // An alias that would take its copy past the limit counts too.
  std::string aliased = "a: &a " + std::string(100, '[') + std::string(100, ']') +
                        "\nb: " + std::string(30, '[') + "*a" + std::string(30, ']') + "\n";
  EXPECT_THAT(std::string(YamlToJson(aliased).status().message()),
              HasSubstr("limit of 128 levels"));
}

// Finding 4: the count parsed fine and sized an allocation until bad_alloc.
TEST(DocumentLimitsTest, HugeReplicaCountIsRefusedByValidation) {
  absl::StatusOr<CustomJob> job = ParseJobFile(testing::HugeReplicaCountJobYaml());
  ASSERT_THAT(job, IsOk());
  job->display_name = "huge";
  EXPECT_THAT(std::string(ValidateCustomJob(*job).message()),
              HasSubstr("jobSpec.workerPoolSpecs[1].replicaCount: must be at most 1000 per pool; "
                        "got 100000000"));
}

}  // namespace
}  // namespace trainpkg::jobspec
