#include "trainer_runtime/output_paths.h"

#include <stdlib.h>

#include <fstream>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::runtime {
namespace {

using Vars = std::map<std::string, std::string>;

namespace fs = std::filesystem;
using ::testing::HasSubstr;

TEST(LocalPathForUriTest, MapsPathsFileUrisAndGcs) {
  EXPECT_EQ(*LocalPathForUri("gs://bucket/run7/model/"), fs::path("/gcs/bucket/run7/model"));
  EXPECT_EQ(*LocalPathForUri("gs://b/x"), fs::path("/gcs/b/x"));
  EXPECT_EQ(*LocalPathForUri("gs://b"), fs::path("/gcs/b"));
  EXPECT_EQ(*LocalPathForUri("file:///tmp/out/model/"), fs::path("/tmp/out/model"));
  EXPECT_EQ(*LocalPathForUri("file://localhost/tmp/out"), fs::path("/tmp/out"));
  EXPECT_EQ(*LocalPathForUri("/abs/model/"), fs::path("/abs/model"));
  EXPECT_EQ(*LocalPathForUri("out/model"), fs::path("out/model"));
  EXPECT_EQ(*LocalPathForUri("/"), fs::path("/"));
}

TEST(LocalPathForUriTest, RejectsWhatCannotBeWrittenLocally) {
  for (std::string_view bad : {"", "gs://", "gs:///x", "file://host/x", "file://rel/x", "s3://b/x",
                               "https://example.com/x"}) {
    absl::StatusOr<fs::path> path = LocalPathForUri(bad);
    EXPECT_EQ(path.status().code(), absl::StatusCode::kInvalidArgument) << bad;
  }
  EXPECT_THAT(std::string(LocalPathForUri("s3://b/x").status().message()),
              HasSubstr("unsupported scheme \"s3\""));
}

TEST(ModelWriteOptionsTest, KeepOnlyWhenSetToOne) {
  EXPECT_FALSE(ModelWriteOptionsFromEnvironment(base::MapEnvironment()).keep_worker_temp);
  EXPECT_TRUE(ModelWriteOptionsFromEnvironment(
                  base::MapEnvironment(Vars{{"TRAINPKG_KEEP_WORKER_TEMP", "1"}}))
                  .keep_worker_temp);
  EXPECT_FALSE(ModelWriteOptionsFromEnvironment(
                   base::MapEnvironment(Vars{{"TRAINPKG_KEEP_WORKER_TEMP", "0"}}))
                   .keep_worker_temp);
}

class ModelWriteDirTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "model_write_dir_XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    model_dir_ = root_ / "model";
  }
  void TearDown() override { fs::remove_all(root_); }

  static ClusterInfo Task(std::string type, int64_t index, int64_t rank, bool is_chief) {
    ClusterInfo info;
    info.task_type = std::move(type);
    info.task_index = index;
    info.rank = rank;
    info.world_size = 3;
    info.is_chief = is_chief;
    return info;
  }

  static void Touch(const fs::path& file) { std::ofstream(file) << "weights"; }

  fs::path root_;
  fs::path model_dir_;
};

TEST_F(ModelWriteDirTest, ChiefWritesTheModelDir) {
  absl::StatusOr<ModelWriteDir> dir =
      ModelWriteDir::Create(model_dir_.string() + "/", Task("chief", 0, 0, true));
  ASSERT_THAT(dir, IsOk());
  EXPECT_EQ(dir->path(), model_dir_);
  EXPECT_FALSE(dir->is_worker_temp());
  EXPECT_TRUE(fs::is_directory(model_dir_));
  Touch(dir->path() / "model.json");
  ASSERT_THAT(dir->Finish(), IsOk());
  EXPECT_TRUE(fs::exists(model_dir_ / "model.json"));
}

TEST_F(ModelWriteDirTest, WorkerWritesATempDirThatFinishRemoves) {
  absl::StatusOr<ModelWriteDir> dir =
      ModelWriteDir::Create("file://" + model_dir_.string(), Task("worker", 1, 2, false));
  ASSERT_THAT(dir, IsOk());
  EXPECT_EQ(dir->path(), model_dir_ / "workertemp_1");
  EXPECT_TRUE(dir->is_worker_temp());
  Touch(dir->path() / "model.json");
  ASSERT_THAT(dir->Finish(), IsOk());
  EXPECT_FALSE(fs::exists(model_dir_ / "workertemp_1"));
  EXPECT_TRUE(fs::is_directory(model_dir_));
  EXPECT_THAT(dir->Finish(), IsOk());  // again: harmless
}

TEST_F(ModelWriteDirTest, KeepWorkerTempLeavesItInPlace) {
  absl::StatusOr<ModelWriteDir> dir =
      ModelWriteDir::Create(model_dir_.string(), Task("worker", 0, 1, false),
                            ModelWriteOptions{.keep_worker_temp = true});
  ASSERT_THAT(dir, IsOk());
  Touch(dir->path() / "model.json");
  ASSERT_THAT(dir->Finish(), IsOk());
  EXPECT_TRUE(fs::exists(model_dir_ / "workertemp_0" / "model.json"));
}

TEST_F(ModelWriteDirTest, WithoutChiefWorkerZeroWritesTheModelDir) {
  absl::StatusOr<ModelWriteDir> worker0 =
      ModelWriteDir::Create(model_dir_.string(), Task("worker", 0, 0, true));
  ASSERT_THAT(worker0, IsOk());
  EXPECT_EQ(worker0->path(), model_dir_);
  absl::StatusOr<ModelWriteDir> worker1 =
      ModelWriteDir::Create(model_dir_.string(), Task("worker", 1, 1, false));
  ASSERT_THAT(worker1, IsOk());
  EXPECT_EQ(worker1->path(), model_dir_ / "workertemp_1");
}

TEST_F(ModelWriteDirTest, PsAndEvaluatorDoNotSave) {
  for (const char* type : {"ps", "evaluator"}) {
    absl::StatusOr<ModelWriteDir> dir =
        ModelWriteDir::Create(model_dir_.string(), Task(type, 0, -1, false));
    EXPECT_EQ(dir.status().code(), absl::StatusCode::kFailedPrecondition) << type;
  }
  EXPECT_FALSE(fs::exists(model_dir_));
}

TEST_F(ModelWriteDirTest, ReportsDirectoriesThatCannotBeMade) {
  Touch(root_ / "file");
  absl::StatusOr<ModelWriteDir> dir =
      ModelWriteDir::Create((root_ / "file" / "model").string(), Task("chief", 0, 0, true));
  EXPECT_FALSE(dir.ok());
  EXPECT_THAT(std::string(dir.status().message()), HasSubstr("creating model directory"));
  EXPECT_EQ(ModelWriteDir::Create("", Task("chief", 0, 0, true)).status().code(),
            absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainpkg::runtime
