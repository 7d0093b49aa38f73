// Where `trainpkg run` and `hptune` take their backend, project and region
// from when flags leave them out (issue 18 item 7): the flag, then
// CLOUDSDK_CORE_PROJECT / CLOUDSDK_AI_REGION, then trainpkg's config.yaml,
// then gcloud's active configuration, which is never written and never
// chooses the backend by itself.
#include <fstream>

#include "base/environment.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/cli/backend_flags.h"
#include "sdk/cli/gcloud_config.h"
#include "sdk/cli/user_config.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::cli {
namespace {

using ::testing::HasSubstr;

void Write(const std::filesystem::path& path, const std::string& text) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class CliDefaultsTest : public ::testing::Test {
 protected:
  CliDefaultsTest() {
    env_.Set("HOME", (dir_ / "home").string());
    env_.Set("CLOUDSDK_AUTH_ACCESS_TOKEN", "tok");
  }
  std::filesystem::path GcloudDir() const { return dir_ / "home" / ".config" / "gcloud"; }
  std::filesystem::path TrainpkgConfig() const {
    return dir_ / "home" / ".config" / "trainpkg" / "config.yaml";
  }
  void WriteGcloud(const std::string& name, const std::string& text) {
    Write(GcloudDir() / "configurations" / ("config_" + name), text);
  }
  absl::StatusOr<sdk::CustomJobOptions> Apply(const BackendFlags& flags) {
    sdk::CustomJobOptions options;
    absl::Status status = ApplyBackendFlags(flags, env_, options);
    if (!status.ok()) return status;
    return options;
  }

  testing::TempDir dir_;
  base::MapEnvironment env_;
};

TEST_F(CliDefaultsTest, RegionAloneChoosesVertex) {
  WriteGcloud("default", "[core]\nproject = from-gcloud\n");
  BackendFlags flags;
  flags.region = "us-central1";
  absl::StatusOr<sdk::CustomJobOptions> options = Apply(flags);
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->backend, sdk::JobBackendKind::kVertex);
  EXPECT_EQ(options->vertex.location, "us-central1");
  EXPECT_EQ(options->vertex.project, "from-gcloud");
}

TEST_F(CliDefaultsTest, ProjectAloneChoosesVertexAndTheRegionComesFromTheEnvironment) {
  env_.Set("CLOUDSDK_AI_REGION", "europe-west4");
  BackendFlags flags;
  flags.project = "p1";
  absl::StatusOr<sdk::CustomJobOptions> options = Apply(flags);
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->backend, sdk::JobBackendKind::kVertex);
  EXPECT_EQ(options->vertex.project, "p1");
  EXPECT_EQ(options->vertex.location, "europe-west4");
}

TEST_F(CliDefaultsTest, GcloudDefaultsAloneKeepRunsLocal) {
  WriteGcloud("default", "[core]\nproject = from-gcloud\n[ai]\nregion = us-central1\n");
  env_.Set("CLOUDSDK_CORE_PROJECT", "from-env");
  absl::StatusOr<sdk::CustomJobOptions> options = Apply(BackendFlags{});
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->backend, sdk::JobBackendKind::kLocal);
}

TEST_F(CliDefaultsTest, ConfigFileChoosesTheBackend) {
  Write(TrainpkgConfig(), "backend: vertex\nproject: from-file\nregion: asia-east1\n");
  absl::StatusOr<sdk::CustomJobOptions> options = Apply(BackendFlags{});
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->backend, sdk::JobBackendKind::kVertex);
  EXPECT_EQ(options->vertex.project, "from-file");
  EXPECT_EQ(options->vertex.location, "asia-east1");

  BackendFlags local;
  local.backend = "local";  // the flag wins over the file
  options = Apply(local);
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->backend, sdk::JobBackendKind::kLocal);
}

TEST_F(CliDefaultsTest, ConfigFilesK8sIsRefusedForTuning) {
  Write(TrainpkgConfig(), "backend: k8s\n");
  sdk::CustomJobOptions options;
  absl::Status status = ApplyBackendFlags(BackendFlags{}, env_, options, BackendSet::kTuning);
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("config.yaml: backend: k8s does not run tuning trials"));
  BackendFlags local;
  local.backend = "local";
  EXPECT_THAT(ApplyBackendFlags(local, env_, options, BackendSet::kTuning), IsOk());
}

TEST_F(CliDefaultsTest, XdgConfigHomeIsPreferred) {
  env_.Set("XDG_CONFIG_HOME", (dir_ / "xdg").string());
  Write(dir_ / "xdg" / "trainpkg" / "config.yaml", "backend: slurm\n");
  Write(TrainpkgConfig(), "backend: vertex\n");
  absl::StatusOr<sdk::CustomJobOptions> options = Apply(BackendFlags{});
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->backend, sdk::JobBackendKind::kSlurm);
}

TEST_F(CliDefaultsTest, PrecedenceFlagThenEnvironmentThenConfigFileThenGcloud) {
  WriteGcloud("default", "[core]\nproject = from-gcloud\n[ai]\nregion = us-east1\n");
  Write(TrainpkgConfig(), "project: from-file\n");
  BackendFlags flags;
  flags.backend = "vertex";
  absl::StatusOr<sdk::CustomJobOptions> options = Apply(flags);
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->vertex.project, "from-file");
  EXPECT_EQ(options->vertex.location, "us-east1");

  env_.Set("CLOUDSDK_CORE_PROJECT", "from-env");
  options = Apply(flags);
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->vertex.project, "from-env");

  flags.project = "from-flag";
  options = Apply(flags);
  ASSERT_THAT(options, IsOk());
  EXPECT_EQ(options->vertex.project, "from-flag");
}

TEST_F(CliDefaultsTest, GcloudActiveConfigurationIsFollowedAndNeverWritten) {
  WriteGcloud("default", "[core]\nproject = wrong\n");
  WriteGcloud(
      "work",
      "# comment\n[core]\naccount = a@b.c\nproject = work-proj\n\n[ai]\nregion: us-west1\n");
  Write(GcloudDir() / "active_config", "work\n");
  absl::StatusOr<GcloudProperties> properties = ReadGcloudProperties(env_);
  ASSERT_THAT(properties, IsOk());
  EXPECT_EQ(properties->project, "work-proj");
  EXPECT_EQ(properties->region, "us-west1");

  env_.Set("CLOUDSDK_ACTIVE_CONFIG_NAME", "default");
  properties = ReadGcloudProperties(env_);
  ASSERT_THAT(properties, IsOk());
  EXPECT_EQ(properties->project, "wrong");

  env_.Set("CLOUDSDK_CONFIG", (dir_ / "elsewhere").string());
  properties = ReadGcloudProperties(env_);
  ASSERT_THAT(properties, IsOk());
  EXPECT_EQ(properties->project, "");

  std::vector<std::filesystem::path> files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path())) {
    files.push_back(entry.path());
  }
  // home, .config, gcloud, active_config, configurations, 2 configurations:
  // nothing was written.
  EXPECT_EQ(files.size(), 7u);
}

TEST_F(CliDefaultsTest, MalformedGcloudConfigurationNamesFileAndLine) {
  WriteGcloud("default", "[core]\nproject = p\nthis line is wrong\n");
  absl::StatusOr<GcloudProperties> properties = ReadGcloudProperties(env_);
  EXPECT_EQ(properties.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(properties.status().message(),
              HasSubstr("configurations/config_default: line 3: expected \"[section]\" or "
                        "\"key = value\", found \"this line is wrong\""));

  Write(GcloudDir() / "active_config", "../../etc\n");
  EXPECT_THAT(ReadGcloudProperties(env_).status().message(),
              HasSubstr("active_config: line 1: \"../../etc\" is not a gcloud configuration name"));

  // Only read when a vertex value is missing: a local run does not see it.
  EXPECT_THAT(Apply(BackendFlags{}), IsOk());
  BackendFlags flags;
  flags.region = "us-central1";
  EXPECT_THAT(Apply(flags).status().message(),
              HasSubstr("reading gcloud's configuration for the default core/project"));
}

TEST_F(CliDefaultsTest, MalformedConfigFileNamesFileAndLine) {
  Write(TrainpkgConfig(), "backend: vertex\nprojet: p\n");
  absl::Status status = Apply(BackendFlags{}).status();
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(),
              HasSubstr(TrainpkgConfig().string() + ": line 2: unknown key "
                                                    "\"projet\"; did you mean 'project'?"));

  Write(TrainpkgConfig(), "project: p\nbackend: vertx\n");
  EXPECT_THAT(Apply(BackendFlags{}).status().message(),
              HasSubstr(": line 2: backend: \"vertx\" is not local, vertex, k8s or slurm; did "
                        "you mean 'vertex'?"));

  Write(TrainpkgConfig(), "project: [a, b]\n");
  EXPECT_THAT(Apply(BackendFlags{}).status().message(),
              HasSubstr(": line 1: project: expected a string"));

  Write(TrainpkgConfig(), "region: us-central1\nproject: a: b\n");
  EXPECT_THAT(Apply(BackendFlags{}).status().message(), HasSubstr("at line 2"));

  // Nesting yaml-cpp would recurse into without a bound stops at a limit.
  Write(TrainpkgConfig(), "project: " + std::string(20000, '[') + "\n");
  absl::Status deep = Apply(BackendFlags{}).status();
  EXPECT_EQ(deep.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(deep.message(), HasSubstr(TrainpkgConfig().string()));

  Write(TrainpkgConfig(), "- a list\n");
  EXPECT_THAT(Apply(BackendFlags{}).status().message(), HasSubstr(": line 1: expected a mapping"));
}

TEST_F(CliDefaultsTest, ErrorsSayWhereAValueCameFromAndWhereToSetOne) {
  BackendFlags flags;
  flags.region = "us-central1";
  EXPECT_THAT(Apply(flags).status().message(),
              HasSubstr("--project: required with --backend vertex (or CLOUDSDK_CORE_PROJECT, "
                        "`project:` in " +
                        TrainpkgConfig().string() + ", or gcloud config set project PROJECT)"));
  env_.Set("CLOUDSDK_CORE_PROJECT", "p");
  env_.Set("CLOUDSDK_AI_REGION", "evil.example:1/x");
  flags.region.clear();
  flags.backend = "vertex";
  EXPECT_THAT(Apply(flags).status().message(),
              HasSubstr("\"evil.example:1/x\" (from CLOUDSDK_AI_REGION): "));
  flags.backend = "local";
  flags.region = "us-central1";
  EXPECT_THAT(Apply(flags).status().message(),
              HasSubstr("--region: only applies with --backend vertex"));
}

TEST_F(CliDefaultsTest, LoginRegistryComesFromTheConfigFile) {
  Write(TrainpkgConfig(), "registry: localhost:5000\n");
  absl::StatusOr<UserConfig> config = ReadUserConfig(env_);
  ASSERT_THAT(config, IsOk());
  EXPECT_EQ(config->registry, "localhost:5000");
  EXPECT_EQ(config->file, TrainpkgConfig());
}

}  // namespace
}  // namespace trainpkg::cli
