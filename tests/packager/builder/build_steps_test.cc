// The build steps alone (build_session.h), without a Builder: the config-only
// step, RUN with a fake runner (what command it runs, what its cache key
// leaves out) and COPY from a context; each against a real store and layer
// cache in a scratch directory.
#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/builder/build_session.h"
#include "packager/builder/config_step.h"
#include "packager/builder/copy_step.h"
#include "packager/builder/layer_cache.h"
#include "packager/builder/run_instruction_step.h"
#include "packager/dockerfile/dockerfile.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/test_util/status_matchers.h"

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
namespace df = dockerfile;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::ScratchDir;
using testing::WriteFile;
using ::trainpkg::testing::IsOk;

// Records what it is asked to run and answers with the files of `output`.
class FakeRunner : public StageRunner {
 public:
  explicit FakeRunner(fs::path output) : output_(std::move(output)) {}
  absl::StatusOr<LayerSource> Run(const StageBase&, std::span<const RunLayer>,
                                  const RunCommand& command,
                                  const fs::path& work_dir) const override {
    commands.push_back(command);
    fs::create_directories(work_dir / "upper");
    work_dirs.push_back(work_dir);
    return LayerSource::DirectoryTree(output_);
  }
  absl::StatusOr<run::OverlayMount> Mount(const StageBase&, std::span<const RunLayer>,
                                          const fs::path&) const override {
    return absl::UnimplementedError("no mounts in these tests");
  }
  mutable std::vector<RunCommand> commands;
  mutable std::vector<fs::path> work_dirs;

 private:
  fs::path output_;
};

class BuildStepsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    WriteFile(dir_.path() / "ctx/app/train.py", "print('train')\n");
    WriteFile(dir_.path() / "run-output/made-by-run", "made\n");
    auto store = oci::Layout::Create(dir_.path() / "store");
    ASSERT_THAT(store.status(), IsOk());
    store_.emplace(*std::move(store));
    cache_.emplace(dir_.path() / "cache/layers", *store_);
    auto context = BuildContext::Scan(dir_.path() / "ctx", df::DockerIgnore());
    ASSERT_THAT(context.status(), IsOk());
    context_.emplace(*std::move(context));
    session_.context = &*context_;
    session_.digests = &digests_;
    session_.cache = &*cache_;
    session_.store = &*store_;
    session_.runner = &runner_;
    session_.work_root = dir_.path() / "run";
    session_.layer_options.compression = LayerCompression::kNone;
    session_.stages = &stages_;
  }

  // The first instruction after FROM of `dockerfile`'s only stage.
  const df::Instruction& Parse(const std::string& dockerfile) {
    auto parsed = df::ParseDockerfile(dockerfile, "Dockerfile");
    EXPECT_THAT(parsed.status(), IsOk());
    file_ = *std::move(parsed);
    session_.file = &file_;
    return file_.stages.at(0).instructions.at(0);
  }

  oci::HistoryEntry History(const std::string& text) {
    return oci::HistoryEntry{"1970-01-01T00:00:00Z", text, "", "", true};
  }

  ScratchDir dir_;
  std::optional<oci::Layout> store_;
  std::optional<LayerCache> cache_;
  std::optional<BuildContext> context_;
  FileDigestCache digests_ = FileDigestCache::Load("");
  FakeRunner runner_{dir_.path() / "run-output"};
  std::map<int, StageState> stages_;
  df::Dockerfile file_;
  BuildSession session_;
};

TEST_F(BuildStepsTest, ConfigStepChangesTheConfigAndAddsAnEmptyLayerEntry) {
  StageState state;
  const df::Instruction& env = Parse("FROM scratch\nENV A=1 B=two\n");
  ASSERT_THAT(ConfigStep(session_, env, History("ENV A=1 B=two"), state), IsOk());
  EXPECT_THAT(state.config.image.config.env, ElementsAre("A=1", "B=two"));
  ASSERT_EQ(state.config.image.history.size(), 1u);
  EXPECT_EQ(state.config.image.history[0].created_by, "ENV A=1 B=two");
  EXPECT_TRUE(state.config.image.history[0].empty_layer);
  EXPECT_THAT(state.layers, IsEmpty());

  // ARG changes neither the config nor the history.
  const df::Instruction& arg = Parse("FROM scratch\nARG V=1\n");
  ASSERT_THAT(ConfigStep(session_, arg, History("ARG V=1"), state), IsOk());
  EXPECT_EQ(state.config.image.history.size(), 1u);

  const df::Instruction& expose = Parse("FROM scratch\nEXPOSE $PORT\n");
  absl::Status status = ConfigStep(session_, expose, History("EXPOSE"), state);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("Dockerfile:2: EXPOSE"));
}

TEST_F(BuildStepsTest, RunStepRunsTheCommandOnceAndKeysItWithoutProxyArgs) {
  StageState state;
  state.config.image.config.env = {"PATH=/bin"};
  state.config.image.config.working_dir = "/app";
  state.config.image.config.user = "1000";
  const df::Instruction& instruction = Parse("FROM scratch\nRUN echo $V > /out\n");
  const auto& run = std::get<df::RunInstruction>(instruction.body);
  absl::StatusOr<LayerOrigin> origin =
      RunInstructionStep(session_, instruction, run, {"V=1"}, {"HTTP_PROXY=http://a:3128"},
                         History("RUN echo $V > /out"), state);
  ASSERT_THAT(origin.status(), IsOk());
  EXPECT_EQ(*origin, LayerOrigin::kBuilt);
  ASSERT_EQ(runner_.commands.size(), 1u);
  const RunCommand& command = runner_.commands[0];
  EXPECT_THAT(command.args, ElementsAre("/bin/sh", "-c", "echo $V > /out"));
  EXPECT_THAT(command.env, ElementsAre("PATH=/bin", "V=1", "HTTP_PROXY=http://a:3128"));
  EXPECT_EQ(command.cwd, "/app");
  EXPECT_EQ(command.user, "1000");
  EXPECT_EQ(command.network, RunNetwork::kDefault);
  ASSERT_EQ(state.layers.size(), 1u);
  EXPECT_TRUE(store_->HasBlob(state.layers[0].digest));
  EXPECT_EQ(state.config.image.history.at(0).created_by, "RUN echo $V > /out # buildkit");
  EXPECT_FALSE(state.config.image.history.at(0).empty_layer);
  EXPECT_TRUE(state.has_rootfs_files);
  ASSERT_EQ(runner_.work_dirs.size(), 1u);
  EXPECT_EQ(runner_.work_dirs[0].parent_path(), dir_.path() / "run");
  EXPECT_FALSE(fs::exists(runner_.work_dirs[0])) << "the work dir outlived the step";

  // The same step under another proxy is the same layer, from the cache.
  StageState again;
  again.config = state.config;
  again.config.image.history.clear();
  again.config.image.rootfs.diff_ids.clear();
  origin = RunInstructionStep(session_, instruction, run, {"V=1"}, {"HTTP_PROXY=http://b:3128"},
                              History("RUN echo $V > /out"), again);
  ASSERT_THAT(origin.status(), IsOk());
  EXPECT_EQ(*origin, LayerOrigin::kCache);
  EXPECT_EQ(runner_.commands.size(), 1u);
  EXPECT_EQ(again.layers, state.layers);
  EXPECT_EQ(again.chain, state.chain);

  // Another ARG value is another command.
  StageState other;
  other.config = again.config;
  origin = RunInstructionStep(session_, instruction, run, {"V=2"}, {},
                              History("RUN echo $V > /out"), other);
  ASSERT_THAT(origin.status(), IsOk());
  EXPECT_EQ(*origin, LayerOrigin::kBuilt);
  EXPECT_EQ(runner_.commands.size(), 2u);
}

TEST_F(BuildStepsTest, CopyStepCopiesContextFilesAndRemembersThemForCopyFrom) {
  StageState state;
  state.config.image.config.working_dir = "/srv";
  const df::Instruction& instruction = Parse("FROM scratch\nCOPY app/ app/\n");
  const auto& copy = std::get<df::CopyInstruction>(instruction.body);
  absl::StatusOr<LayerOrigin> origin =
      CopyStep(session_, instruction, copy, nullptr, History("COPY app/ app/"), state);
  ASSERT_THAT(origin.status(), IsOk());
  EXPECT_EQ(*origin, LayerOrigin::kBuilt);
  ASSERT_EQ(state.layers.size(), 1u);
  EXPECT_TRUE(store_->HasBlob(state.layers[0].digest));
  std::vector<std::string> paths;
  for (const StageFile& f : state.files) paths.push_back(f.image_path);
  EXPECT_THAT(paths, ::testing::Contains("/srv/app"));
  EXPECT_TRUE(runner_.commands.empty());
  EXPECT_FALSE(state.has_rootfs_files);

  StageState again;
  again.config.image.config.working_dir = "/srv";
  origin = CopyStep(session_, instruction, copy, nullptr, History("COPY app/ app/"), again);
  ASSERT_THAT(origin.status(), IsOk());
  EXPECT_EQ(*origin, LayerOrigin::kCache);
  EXPECT_EQ(again.layers, state.layers);

  const df::Instruction& missing = Parse("FROM scratch\nCOPY nothing.txt /\n");
  absl::Status status = CopyStep(session_, missing, std::get<df::CopyInstruction>(missing.body),
                                 nullptr, History("COPY nothing.txt /"), again)
                            .status();
  EXPECT_FALSE(status.ok());
  EXPECT_THAT(status.message(), HasSubstr("Dockerfile:2: COPY"));
}

}  // namespace
}  // namespace trainpkg::packager::builder
