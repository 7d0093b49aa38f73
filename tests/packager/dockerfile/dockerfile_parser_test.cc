#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "packager/dockerfile/dockerfile.h"
#include "tests/packager/dockerfile/parse_test_util.h"

namespace trainpkg::packager::dockerfile {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::Parse;

template <typename T>
const T& Only(std::string_view text) {
  static Dockerfile df;
  df = Parse(text);
  EXPECT_EQ(df.stages.size(), 1u);
  EXPECT_EQ(df.stages[0].instructions.size(), 1u);
  return std::get<T>(df.stages.at(0).instructions.at(0).body);
}

TEST(DockerfileParser, VertexTrainerDockerfile) {
  Dockerfile df = Parse(
      "FROM python:3.11-slim\n"
      "WORKDIR /app\n"
      "COPY trainer /app/trainer\n"
      "RUN pip install --no-cache-dir numpy \\\n"
      "    pandas\n"
      "ENTRYPOINT [\"python3\",\"-m\",\"trainer.task\"]\n");
  ASSERT_EQ(df.stages.size(), 1u);
  const Stage& s = df.stages[0];
  EXPECT_EQ(std::get<FromInstruction>(s.from.body), (FromInstruction{"python:3.11-slim", "", ""}));
  ASSERT_EQ(s.instructions.size(), 4u);
  EXPECT_EQ(s.instructions[0], (Instruction{"WORKDIR", {2, 2}, WorkdirInstruction{"/app"}}));
  CopyInstruction copy;
  copy.sources = {"trainer"};
  copy.dest = "/app/trainer";
  EXPECT_EQ(s.instructions[1], (Instruction{"COPY", {3, 3}, copy}));
  EXPECT_EQ(
      s.instructions[2],
      (Instruction{"RUN",
                   {4, 5},
                   RunInstruction{
                       {false, {"pip install --no-cache-dir numpy     pandas"}}, {}, false, ""}}));
  EXPECT_EQ(
      s.instructions[3],
      (Instruction{
          "ENTRYPOINT", {6, 6}, EntrypointInstruction{{true, {"python3", "-m", "trainer.task"}}}}));
  EXPECT_TRUE(df.warnings.empty());
}

TEST(DockerfileParser, DirectivesAtTopOnlyAndBacktickEscape) {
  Dockerfile df = Parse(
      "# SYNTAX = docker/dockerfile:1\n"
      "#escape=`\n"
      "FROM scratch\n"
      "COPY a `\n"
      "  b /dst/\n");
  EXPECT_EQ(df.escape, '`');
  EXPECT_EQ(df.syntax, "docker/dockerfile:1");
  EXPECT_THAT(std::get<CopyInstruction>(df.stages[0].instructions[0].body).sources,
              ElementsAre("a", "b"));
  // After a comment or an instruction, a directive is just a comment.
  Dockerfile late = Parse("# hello\n# escape=`\nFROM scratch\n");
  EXPECT_EQ(late.escape, '\\');
}

TEST(DockerfileParser, CommentsAndBlankLinesInsideContinuations) {
  Dockerfile df = Parse(
      "FROM scratch\n"
      "RUN echo a \\\n"
      "  # a comment inside\n"
      "\n"
      "  b\n");
  EXPECT_EQ(df.stages[0].instructions[0],
            (Instruction{"RUN", {2, 5}, RunInstruction{{false, {"echo a   b"}}, {}, false, ""}}));
  ASSERT_EQ(df.warnings.size(), 1u);
  EXPECT_THAT(df.warnings[0], HasSubstr("Dockerfile:2: empty continuation line"));
}

TEST(DockerfileParser, ArgBeforeFromAndMultipleArgs) {
  Dockerfile df = Parse("ARG BASE=python:3.11 VERSION\nFROM ${BASE} AS Build\nARG A=1 B\n");
  ASSERT_EQ(df.global_args.size(), 1u);
  EXPECT_EQ(std::get<ArgInstruction>(df.global_args[0].body).args,
            (std::vector<ArgInstruction::Arg>{{"BASE", "python:3.11"}, {"VERSION", std::nullopt}}));
  EXPECT_EQ(df.stages[0].name, "build");
  EXPECT_EQ(std::get<FromInstruction>(df.stages[0].from.body).image, "${BASE}");
}

TEST(DockerfileParser, FromPlatformAndOciLayout) {
  Dockerfile df = Parse("FROM --platform=linux/arm64 oci:./base:v1 as base\n");
  EXPECT_EQ(std::get<FromInstruction>(df.stages[0].from.body),
            (FromInstruction{"oci:./base:v1", "linux/arm64", "base"}));
}

TEST(DockerfileParser, EnvBothFormsKeepQuotesForExpansion) {
  EXPECT_EQ(Only<EnvInstruction>("FROM scratch\nENV A=1 B=\"x y\" C='$z'\n").vars,
            (std::vector<KeyValue>{{"A", "1"}, {"B", "\"x y\""}, {"C", "'$z'"}}));
  EXPECT_EQ(Only<EnvInstruction>("FROM scratch\nENV PATH /opt/bin:$PATH  more\n").vars,
            (std::vector<KeyValue>{{"PATH", "/opt/bin:$PATH  more"}}));
}

TEST(DockerfileParser, LabelsAndMaintainer) {
  EXPECT_EQ(Only<LabelInstruction>("FROM scratch\nLABEL a=b \"c d\"=e\n").labels,
            (std::vector<KeyValue>{{"a", "b"}, {"\"c d\"", "e"}}));
  Dockerfile df = Parse("FROM scratch\nMAINTAINER Jane <j@x>\n");
  EXPECT_EQ(std::get<MaintainerInstruction>(df.stages[0].instructions[0].body).name, "Jane <j@x>");
  EXPECT_THAT(df.warnings, ElementsAre(HasSubstr("MAINTAINER is deprecated")));
}

TEST(DockerfileParser, CopyAndAddFlagsAndJsonForm) {
  const CopyInstruction& c = Only<CopyInstruction>(
      "FROM scratch\nCOPY --from=build --chown=1000:1000 --chmod=0755 --link "
      "[\"my file\", \"b\", \"/dst dir/\"]\n");
  EXPECT_THAT(c.sources, ElementsAre("my file", "b"));
  EXPECT_EQ(c.dest, "/dst dir/");
  EXPECT_EQ(c.from, "build");
  EXPECT_EQ(c.chown, "1000:1000");
  EXPECT_EQ(c.chmod, "0755");
  EXPECT_TRUE(c.link);
  EXPECT_TRUE(c.json_form);
  const CopyInstruction& a = Only<CopyInstruction>("FROM scratch\nADD data.tar.gz /data/\n");
  EXPECT_TRUE(a.is_add);
  EXPECT_THAT(a.sources, ElementsAre("data.tar.gz"));
}

TEST(DockerfileParser, SimpleInstructions) {
  EXPECT_EQ(Only<UserInstruction>("FROM scratch\nUSER 1000:1000\n").user, "1000:1000");
  EXPECT_EQ(Only<StopSignalInstruction>("FROM scratch\nSTOPSIGNAL SIGINT\n").signal, "SIGINT");
  EXPECT_THAT(Only<ExposeInstruction>("FROM scratch\nEXPOSE 80 8000-8010/udp\n").ports,
              ElementsAre("80", "8000-8010/udp"));
  EXPECT_THAT(Only<VolumeInstruction>("FROM scratch\nVOLUME [\"/a\", \"/b\"]\n").paths,
              ElementsAre("/a", "/b"));
  EXPECT_THAT(Only<VolumeInstruction>("FROM scratch\nVOLUME /a /b\n").paths,
              ElementsAre("/a", "/b"));
  EXPECT_THAT(Only<ShellInstruction>("FROM scratch\nSHELL [\"/bin/bash\", \"-c\"]\n").shell,
              ElementsAre("/bin/bash", "-c"));
  EXPECT_EQ(Only<CmdInstruction>("FROM scratch\nCMD echo $HOME\n").command,
            (CommandLine{false, {"echo $HOME"}}));
  EXPECT_EQ(Only<OnbuildInstruction>("FROM scratch\nONBUILD COPY . /app\n").trigger, "COPY . /app");
}

TEST(DockerfileParser, HealthcheckForms) {
  const auto& h = Only<HealthcheckInstruction>(
      "FROM scratch\nHEALTHCHECK --interval=1m30s --timeout=500ms --retries=3 CMD "
      "[\"curl\", \"-f\", \"http://localhost/\"]\n");
  EXPECT_EQ(h.interval, std::chrono::seconds(90));
  EXPECT_EQ(h.timeout, std::chrono::milliseconds(500));
  EXPECT_EQ(h.retries, 3);
  EXPECT_EQ(h.test, (CommandLine{true, {"curl", "-f", "http://localhost/"}}));
  EXPECT_TRUE(Only<HealthcheckInstruction>("FROM scratch\nHEALTHCHECK none\n").none);
}

TEST(DockerfileParser, MalformedJsonFallsBackToShellFormWithWarning) {
  Dockerfile df = Parse("FROM scratch\nCMD ['python3', 'x']\n");
  EXPECT_EQ(std::get<CmdInstruction>(df.stages[0].instructions[0].body).command,
            (CommandLine{false, {"['python3', 'x']"}}));
  EXPECT_THAT(df.warnings, ElementsAre(HasSubstr("Dockerfile:2: CMD: CMD looks like JSON")));
}

TEST(DockerfileParser, RunNetworkFlag) {
  EXPECT_EQ(Only<RunInstruction>("FROM scratch\nRUN --network=none wget x\n").network, "none");
  EXPECT_EQ(Only<RunInstruction>("FROM scratch\nRUN --network=default wget x\n").network,
            "default");
  EXPECT_EQ(Only<RunInstruction>("FROM scratch\nRUN wget x\n").network, "");
  const RunInstruction& heredoc =
      Only<RunInstruction>("FROM scratch\nRUN --network=none <<EOF\necho hi\nEOF\n");
  EXPECT_EQ(heredoc.network, "none");
  EXPECT_TRUE(heredoc.script);
  EXPECT_THAT(heredoc.command.args, ElementsAre("echo hi\n"));
}

TEST(DockerfileParser, CrlfBomAndLowercaseKeywords) {
  Dockerfile df = Parse(
      "\xEF\xBB\xBF"
      "from scratch\r\nworkdir /w\r\n");
  EXPECT_EQ(df.stages[0].instructions[0].keyword, "WORKDIR");
  EXPECT_EQ(std::get<WorkdirInstruction>(df.stages[0].instructions[0].body).path, "/w");
}

}  // namespace
}  // namespace trainpkg::packager::dockerfile
