// `trainpkg run --config` with hostile job files (issue #16 findings 3, 4 and
// 13), the real binary end to end: each ends with a clear error, exit code 2,
// bounded memory and nothing left in the job store. trainpkg runs under a
// 4 GiB address-space limit, so a regression fails here instead of
// exhausting the machine.
#include <filesystem>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/attack_documents.h"
#include "tests/test_util/file.h"
#include "tests/test_util/peak_rss.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::sdk {
namespace {

using ::testing::HasSubstr;

constexpr int64_t kMaxPeakRssKib = 256 * 1024;

class CliHostileConfigTest : public ::testing::Test {
 protected:
  // `trainpkg run --config <text in a file>`.
  testing::ChildRun RunWithConfig(const std::string& name, const std::string& text) {
    const std::filesystem::path config = dir_ / name;
    EXPECT_THAT(base::WriteFileAtomic(config, text), IsOk());
    return testing::RunCommandMeasured(
        {"/bin/sh", "-c", "ulimit -v 4194304 && TRAINPKG_HOME=\"$0\" exec \"$@\"", home().string(),
         TRAINPKG_PATH, "run", "--config", config.string()});
  }

  std::filesystem::path home() const { return dir_ / "home"; }

  void ExpectCleanRefusal(const testing::ChildRun& run) {
    EXPECT_EQ(run.signal, 0) << run.out;
    EXPECT_EQ(run.exit_code, 2) << run.out;
    EXPECT_LE(run.peak_rss_kib, kMaxPeakRssKib);
    EXPECT_EQ(testing::CountEntries(home() / "jobs"), 0);
  }

  testing::TempDir dir_;
};

// Before the fix: SIGSEGV, exit 139.
TEST_F(CliHostileConfigTest, DeeplyNestedJsonConfigFailsClearly) {
  testing::ChildRun run = RunWithConfig("deep.json", testing::DeepJsonJob());
  ExpectCleanRefusal(run);
  EXPECT_THAT(run.out, HasSubstr("deep.json: invalid YAML at line 1"));
  EXPECT_THAT(run.out, HasSubstr("nest deeper than the limit of 128 levels"));
}

// Before the fix: allocation until bad_alloc.
TEST_F(CliHostileConfigTest, HugeReplicaCountFailsValidation) {
  testing::ChildRun run = RunWithConfig("huge.yaml", testing::HugeReplicaCountJobYaml());
  ExpectCleanRefusal(run);
  EXPECT_THAT(run.out, HasSubstr("jobSpec.workerPoolSpecs[1].replicaCount: must be at most 1000 "
                                 "per pool; got 100000000"));
}

// Before the fix: SIGSEGV (cycle) and > 1.9 GB (billion laughs).
TEST_F(CliHostileConfigTest, YamlAliasBombsFailClearly) {
  ExpectCleanRefusal(RunWithConfig("cycle.yaml", "displayName: x\njobSpec: &spec {a: *spec}\n"));
  testing::ChildRun run = RunWithConfig("laughs.yaml", testing::BillionLaughsYaml());
  ExpectCleanRefusal(run);
  EXPECT_THAT(run.out, HasSubstr("more than 100000 values once its aliases are expanded"));
}

}  // namespace
}  // namespace trainpkg::sdk
