#include "trainer_runtime/data/shard_policy.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "tests/trainer_runtime/data/test_files.h"
#include "trainer_runtime/data/batcher.h"
#include "trainer_runtime/data/csv_reader.h"
#include "trainer_runtime/data/file_source.h"

namespace trainpkg::data {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

constexpr int kWorkers = 3;

// `files` CSV files under dir; file f holds `per_file` rows labelled
// 100 * f + i, so every label says where it came from.
std::vector<std::filesystem::path> WriteFiles(const testing::TempDir& dir, int files,
                                              int per_file) {
  std::vector<std::filesystem::path> paths;
  for (int f = 0; f < files; ++f) {
    std::string text;
    for (int i = 0; i < per_file; ++i)
      text += std::to_string(f) + "," + std::to_string(100 * f + i) + "\n";
    paths.push_back(dir / ("part-" + std::to_string(f) + ".csv"));
    testing::WriteBytes(paths.back(), text);
  }
  return paths;
}

absl::StatusOr<std::vector<int32_t>> ReadAll(const std::vector<std::filesystem::path>& files,
                                             AutoShardPolicy policy, int rank,
                                             AutoShardPolicy* applied = nullptr) {
  auto source = FileSource::Create(
      {.files = files,
       .policy = policy,
       .rank = rank,
       .world_size = kWorkers,
       .element_shape = {1},
       .parser = [](const std::filesystem::path& p) { return ReadCsv(p, CsvOptions{}); },
       .epochs = 1});
  if (!source.ok()) return source.status();
  if (applied != nullptr) *applied = (*source)->plan().applied;
  Batcher batcher(*std::move(source), {.batch_size = 4});
  std::vector<int32_t> labels;
  Batch batch;
  while (true) {
    absl::StatusOr<bool> got = batcher.Next(&batch);
    if (!got.ok()) return got.status();
    if (!*got) break;
    labels.insert(labels.end(), batch.labels.begin(), batch.labels.end());
  }
  return labels;
}

TEST(ShardPolicyTest, FileGivesEachWorkerEveryThirdFile) {
  testing::TempDir dir;
  auto files = WriteFiles(dir, 5, 2);
  EXPECT_THAT(ReadAll(files, AutoShardPolicy::kFile, 0).value(), ElementsAre(0, 1, 300, 301));
  EXPECT_THAT(ReadAll(files, AutoShardPolicy::kFile, 1).value(), ElementsAre(100, 101, 400, 401));
  EXPECT_THAT(ReadAll(files, AutoShardPolicy::kFile, 2).value(), ElementsAre(200, 201));
}

TEST(ShardPolicyTest, FileWithTooFewFilesIsAnError) {
  testing::TempDir dir;
  auto files = WriteFiles(dir, 2, 2);
  auto status = ReadAll(files, AutoShardPolicy::kFile, 0).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(status.message()),
            "FILE sharding needs at least as many input files as workers: 2 file(s) for 3 "
            "workers; use AUTO or DATA to shard by element");
}

TEST(ShardPolicyTest, DataKeepsEveryThirdElementOfTheWholeStream) {
  testing::TempDir dir;
  auto files = WriteFiles(dir, 2, 4);  // stream: 0 1 2 3 100 101 102 103
  EXPECT_THAT(ReadAll(files, AutoShardPolicy::kData, 0).value(), ElementsAre(0, 3, 102));
  EXPECT_THAT(ReadAll(files, AutoShardPolicy::kData, 1).value(), ElementsAre(1, 100, 103));
  EXPECT_THAT(ReadAll(files, AutoShardPolicy::kData, 2).value(), ElementsAre(2, 101));
}

TEST(ShardPolicyTest, AutoUsesFileWhenEnoughFilesElseFallsBackToData) {
  testing::TempDir dir;
  AutoShardPolicy applied = AutoShardPolicy::kAuto;
  auto three = WriteFiles(dir, 3, 2);
  EXPECT_THAT(ReadAll(three, AutoShardPolicy::kAuto, 1, &applied).value(), ElementsAre(100, 101));
  EXPECT_EQ(applied, AutoShardPolicy::kFile);
  const std::vector<std::filesystem::path> two(three.begin(), three.begin() + 2);
  // stream 0 1 100 101: worker 0 keeps positions 0 and 3
  EXPECT_THAT(ReadAll(two, AutoShardPolicy::kAuto, 0, &applied).value(), ElementsAre(0, 101));
  EXPECT_EQ(applied, AutoShardPolicy::kData);
}

TEST(ShardPolicyTest, OffGivesEveryWorkerEverything) {
  testing::TempDir dir;
  auto files = WriteFiles(dir, 2, 2);
  for (int rank = 0; rank < kWorkers; ++rank) {
    EXPECT_THAT(ReadAll(files, AutoShardPolicy::kOff, rank).value(), ElementsAre(0, 1, 100, 101));
  }
}

TEST(ShardPolicyTest, ParserErrorsPropagate) {
  testing::TempDir dir;
  auto files = WriteFiles(dir, 3, 2);
  testing::WriteBytes(files[1], "1,oops\n");
  EXPECT_THAT(std::string(ReadAll(files, AutoShardPolicy::kOff, 0).status().message()),
              HasSubstr("part-1.csv:1:3: label 'oops'"));
}

TEST(ShardPolicyTest, InMemoryDataset) {
  auto ds = Dataset::Create({1}, {0, 1, 2, 3, 4, 5, 6}, {0, 1, 2, 3, 4, 5, 6}).value();
  EXPECT_THAT(ShardDataset(ds, AutoShardPolicy::kData, 1, kWorkers)->labels(), ElementsAre(1, 4));
  EXPECT_THAT(ShardDataset(ds, AutoShardPolicy::kAuto, 0, kWorkers)->labels(),
              ElementsAre(0, 3, 6));
  EXPECT_EQ(ShardDataset(ds, AutoShardPolicy::kOff, 2, kWorkers)->size(), 7);
  EXPECT_THAT(std::string(ShardDataset(ds, AutoShardPolicy::kFile, 0, kWorkers).status().message()),
              HasSubstr("FILE sharding needs a file-based source"));
  EXPECT_THAT(std::string(ShardDataset(ds, AutoShardPolicy::kData, 3, kWorkers).status().message()),
              HasSubstr("worker rank 3 of world size 3"));
}

TEST(ShardPolicyTest, Names) {
  EXPECT_EQ(ParseAutoShardPolicy("file").value(), AutoShardPolicy::kFile);
  EXPECT_EQ(ParseAutoShardPolicy("OFF").value(), AutoShardPolicy::kOff);
  EXPECT_EQ(static_cast<int>(AutoShardPolicy::kData), 2);
  EXPECT_THAT(std::string(ParseAutoShardPolicy("HINT").status().message()),
              HasSubstr("valid: OFF, AUTO, FILE, DATA"));
}

}  // namespace
}  // namespace trainpkg::data
