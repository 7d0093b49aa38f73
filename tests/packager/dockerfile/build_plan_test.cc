#include "packager/dockerfile/build_plan.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/packager/dockerfile/parse_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::dockerfile {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::Parse;

BuildOptions Opts(std::map<std::string, std::string> args, std::string target = "") {
  BuildOptions o;
  o.build_args = std::move(args);
  o.target = std::move(target);
  return o;
}

constexpr std::string_view kMultiStage =
    "ARG PY=3.11\n"
    "FROM python:${PY} AS build\n"
    "RUN make\n"
    "FROM scratch AS tools\n"
    "FROM build AS test\n"
    "FROM oci:/srv/base:v2\n"
    "COPY --from=build /out /app\n"
    "COPY --from=1 /t /t\n"
    "COPY --from=busybox:1.36 /bin/sh /bin/sh\n";

TEST(BuildPlan, ResolvesBasesCopiesAndOrder) {
  Dockerfile df = Parse(kMultiStage);
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, {});
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->stages[0].base.kind, BaseImage::Kind::kRegistry);
  EXPECT_EQ(plan->stages[0].base.reference, "python:3.11");
  EXPECT_EQ(plan->stages[1].base.kind, BaseImage::Kind::kScratch);
  EXPECT_EQ(plan->stages[2].base.kind, BaseImage::Kind::kStage);
  EXPECT_EQ(plan->stages[2].base.stage, 0);
  EXPECT_EQ(plan->stages[3].base.kind, BaseImage::Kind::kOciLayout);
  EXPECT_EQ(plan->stages[3].base.oci_dir, "/srv/base");
  EXPECT_EQ(plan->stages[3].base.oci_ref, "v2");
  EXPECT_EQ(plan->stages[3].copy_from.at(0), (CopyFrom{CopyFrom::Kind::kStage, 0, ""}));
  EXPECT_EQ(plan->stages[3].copy_from.at(1), (CopyFrom{CopyFrom::Kind::kStage, 1, ""}));
  EXPECT_EQ(plan->stages[3].copy_from.at(2),
            (CopyFrom{CopyFrom::Kind::kImage, -1, "busybox:1.36"}));
  EXPECT_EQ(plan->target, 3);
  EXPECT_THAT(plan->order, ElementsAre(0, 1, 3));  // "test" is not needed
  EXPECT_THAT(plan->warnings, IsEmpty());
}

TEST(BuildPlan, TargetSelectsStageAndItsDependencies) {
  Dockerfile df = Parse(kMultiStage);
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, Opts({}, "TEST"));
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->target, 2);
  EXPECT_THAT(plan->order, ElementsAre(0, 2));
  absl::StatusOr<BuildPlan> bad = PlanBuild(df, Opts({}, "tset"));
  ASSERT_FALSE(bad.ok());
  EXPECT_THAT(std::string(bad.status().message()),
              HasSubstr("target stage 'tset' could not be found (did you mean 'test'?); named "
                        "stages: build, tools, test"));
}

TEST(BuildPlan, BuildArgOverridesGlobalDefaultInFrom) {
  Dockerfile df = Parse(kMultiStage);
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, Opts({{"PY", "3.12"}}));
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->stages[0].base.reference, "python:3.12");
}

TEST(BuildPlan, UnusedBuildArgWarns) {
  Dockerfile df = Parse("FROM scratch AS a\nARG USED\nFROM scratch\n");
  absl::StatusOr<BuildPlan> plan =
      PlanBuild(df, Opts({{"USED", "1"}, {"NOPE", "2"}, {"HTTP_PROXY", "http://p"}}));
  ASSERT_THAT(plan, IsOk());
  // Stage a is not built, so USED is not consumed either.
  EXPECT_THAT(plan->warnings, ElementsAre(HasSubstr("build-args [NOPE USED] were not consumed")));
  plan = PlanBuild(df, Opts({{"USED", "1"}}, "a"));
  EXPECT_THAT(plan->warnings, IsEmpty());
}

TEST(BuildPlan, StageErrors) {
  auto error = [](std::string_view text) {
    absl::StatusOr<BuildPlan> plan = PlanBuild(Parse(text), {});
    EXPECT_FALSE(plan.ok());
    return plan.ok() ? std::string() : std::string(plan.status().message());
  };
  EXPECT_THAT(error("FROM later\nFROM scratch AS later\n"),
              HasSubstr("Dockerfile:1: FROM: stage 'later' is defined at line 2, after this FROM"));
  EXPECT_THAT(error("FROM scratch AS a\nCOPY --from=a /x /y\n"),
              HasSubstr("Dockerfile:2: COPY: --from=a names this stage"));
  EXPECT_THAT(
      error("FROM scratch\nCOPY --from=7 /x /y\n"),
      HasSubstr("Dockerfile:2: COPY: --from=7: no stage has that index; stages are 0 to 0"));
  EXPECT_THAT(error("FROM scratch AS a\nCOPY --from=b /x /y\nFROM a AS b\n"),
              HasSubstr("circular dependency between stages: b -> a -> b"));
  EXPECT_THAT(error("ARG IMG\nFROM ${IMG}\n"),
              HasSubstr("Dockerfile:2: FROM: '${IMG}' expanded to an empty image"));
}

TEST(BuildPlan, ArgScopingPerStage) {
  Dockerfile df = Parse(
      "ARG V=global\n"
      "ARG ONLY_GLOBAL=g\n"
      "FROM scratch\n"
      "WORKDIR /a/$V/${ONLY_GLOBAL:-unset}\n"
      "ARG V\n"
      "WORKDIR /b/$V\n"
      "ARG V=stage\n"
      "WORKDIR /c/$V\n"
      "ARG TARGETARCH\n"
      "LABEL arch=$TARGETARCH\n");
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, {});
  ASSERT_THAT(plan, IsOk());
  absl::StatusOr<ExpandedStage> st = ExpandStage(df, *plan, {}, 0, {});
  ASSERT_THAT(st, IsOk());
  auto workdir = [&](size_t i) {
    return std::get<WorkdirInstruction>(st->instructions[i].body).path;
  };
  EXPECT_EQ(workdir(0), "/a//unset");  // global ARGs are not visible until re-declared
  EXPECT_EQ(workdir(2), "/b/global");  // re-declared: takes the global value
  EXPECT_EQ(workdir(4), "/c/stage");
  EXPECT_EQ(std::get<LabelInstruction>(st->instructions[6].body).labels[0].value, "amd64");

  absl::StatusOr<BuildPlan> with_arg = PlanBuild(df, Opts({{"V", "cli"}}));
  st = ExpandStage(df, *with_arg, Opts({{"V", "cli"}}), 0, {});
  ASSERT_THAT(st, IsOk());
  EXPECT_EQ(workdir(2), "/b/cli");
  EXPECT_EQ(workdir(4), "/c/cli");  // --build-arg beats the stage default
}

TEST(BuildPlan, EnvBeatsArgAndSeesValuesBeforeItsLine) {
  Dockerfile df = Parse(
      "FROM scratch\n"
      "ARG X=arg\n"
      "ENV X=env Y=$X\n"
      "ENV Z=\"$X $HOME\"\n"
      "COPY --chown=$UID [\"a\", \"${X}/b c\", \"/dst/$Y/\"]\n"
      "RUN echo $X\n");
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, {});
  ASSERT_THAT(plan, IsOk());
  absl::StatusOr<ExpandedStage> st = ExpandStage(df, *plan, {}, 0, {"HOME=/root", "UID=7"});
  ASSERT_THAT(st, IsOk());
  EXPECT_EQ(std::get<EnvInstruction>(st->instructions[1].body).vars,
            (std::vector<KeyValue>{{"X", "env"}, {"Y", "arg"}}));
  EXPECT_EQ(std::get<EnvInstruction>(st->instructions[2].body).vars[0].value, "env /root");
  const auto& copy = std::get<CopyInstruction>(st->instructions[3].body);
  EXPECT_EQ(copy.chown, "7");
  EXPECT_THAT(copy.sources, ElementsAre("a", "env/b c"));
  EXPECT_EQ(copy.dest, "/dst/arg/");
  EXPECT_EQ(std::get<RunInstruction>(st->instructions[4].body).command.args[0], "echo $X");
  EXPECT_EQ(st->scope.Lookup("X"), "env");
}

TEST(BuildPlan, RunSeesTheArgsInScopeThatNoEnvHides) {
  Dockerfile df = Parse(
      "FROM scratch\n"
      "RUN first\n"
      "ARG A=a B C=c\n"
      "ENV C=env\n"
      "RUN second\n");
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, Opts({{"B", "cli"}}));
  ASSERT_THAT(plan, IsOk());
  absl::StatusOr<ExpandedStage> st = ExpandStage(df, *plan, Opts({{"B", "cli"}}), 0, {});
  ASSERT_THAT(st, IsOk());
  EXPECT_THAT(st->run_args.at(0), ElementsAre());
  EXPECT_THAT(st->run_args.at(3), ElementsAre("A=a", "B=cli"));
  EXPECT_EQ(st->run_args.count(1), 0u);
}

TEST(BuildPlan, RunGetsProxyBuildArgsWithoutAnArgButApartFromTheOthers) {
  Dockerfile df = Parse(
      "FROM scratch\n"
      "RUN first\n"
      "ENV https_proxy=http://env\n"
      "ARG HTTP_PROXY\n"
      "RUN second\n");
  const BuildOptions options = Opts({{"HTTP_PROXY", "http://declared"},
                                     {"no_proxy", "localhost"},
                                     {"https_proxy", "http://hidden"},
                                     {"OTHER", "x"}});
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, options);
  ASSERT_THAT(plan, IsOk());
  absl::StatusOr<ExpandedStage> st = ExpandStage(df, *plan, options, 0, {});
  ASSERT_THAT(st, IsOk());
  // Before the ARG: predefined, so not keyed; after it: an ARG like any.
  EXPECT_THAT(st->run_args.at(0), ElementsAre());
  EXPECT_THAT(
      st->run_proxy_args.at(0),
      ElementsAre("HTTP_PROXY=http://declared", "https_proxy=http://hidden", "no_proxy=localhost"));
  EXPECT_THAT(st->run_args.at(3), ElementsAre("HTTP_PROXY=http://declared"));
  EXPECT_THAT(st->run_proxy_args.at(3), ElementsAre("no_proxy=localhost"))
      << "an ENV of the same name hides the build arg";
}

TEST(BuildPlan, CopyFromExpandsArgs) {
  Dockerfile df =
      Parse("FROM scratch AS builder\nFROM scratch\nARG SRC=builder\nCOPY --from=$SRC /a /b\n");
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, {});
  ASSERT_THAT(plan, IsOk());
  EXPECT_EQ(plan->stages[1].copy_from.at(1), (CopyFrom{CopyFrom::Kind::kStage, 0, ""}));
  EXPECT_THAT(plan->order, ElementsAre(0, 1));
}

}  // namespace
}  // namespace trainpkg::packager::dockerfile
