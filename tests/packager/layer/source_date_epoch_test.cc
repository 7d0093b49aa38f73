#include "packager/layer/source_date_epoch.h"

#include "gtest/gtest.h"

namespace trainpkg::packager {
namespace {

TEST(SourceDateEpochTest, ReadsTheEnvironmentSeam) {
  base::MapEnvironment env;
  EXPECT_EQ(*SourceDateEpochFromEnvironment(env), std::nullopt);
  env.Set("SOURCE_DATE_EPOCH", "");
  EXPECT_EQ(*SourceDateEpochFromEnvironment(env), std::nullopt);
  env.Set("SOURCE_DATE_EPOCH", "1700000000");
  EXPECT_EQ(*SourceDateEpochFromEnvironment(env), 1700000000);
  for (const char* bad : {"-1", "12x", " 5", "1e9"}) {
    env.Set("SOURCE_DATE_EPOCH", bad);
    absl::StatusOr<std::optional<int64_t>> r = SourceDateEpochFromEnvironment(env);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
}

}  // namespace
}  // namespace trainpkg::packager
