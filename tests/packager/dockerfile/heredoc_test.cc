// Dockerfile here-documents (BuildKit's dockerfile:1.4 syntax): the lexer
// reads the bodies, the parser puts them into RUN/COPY/ADD, the expander
// substitutes COPY bodies with unquoted delimiters.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "fmt/format.h"
#include "packager/dockerfile/build_plan.h"
#include "packager/dockerfile/dockerfile.h"
#include "packager/dockerfile/shell_word.h"
#include "tests/packager/dockerfile/parse_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::dockerfile {
namespace {

using ::testing::ElementsAre;
using testing::Error;
using ::testing::HasSubstr;
using testing::Parse;

Heredoc Doc(std::string delimiter, std::string body, bool strip_tabs, bool expand,
            SourceRange lines) {
  return Heredoc{std::move(delimiter), std::move(body), strip_tabs, expand, lines};
}

// Every form of the issue, one Dockerfile, with the lines each instruction spans.
TEST(Heredoc, EveryFormParsesWithItsLines) {
  Dockerfile df = Parse(
      "FROM scratch\n"                      // 1
      "RUN <<EOF\n"                         // 2
      "set -e\n"                            // 3
      "apt-get update\n"                    // 4
      "EOF\n"                               // 5
      "RUN <<-EOT bash\n"                   // 6
      "\techo tab-stripped\n"               // 7
      "\tEOT\n"                             // 8
      "RUN python3 <<PY\n"                  // 9
      "print(\"hi\")\n"                     // 10
      "PY\n"                                // 11
      "COPY <<EOF /app/config.yaml\n"       // 12
      "lr: ${LR}\n"                         // 13
      "EOF\n"                               // 14
      "COPY <<-\"EOT\" /etc/motd\n"         // 15
      "\t$NOT_EXPANDED\n"                   // 16
      "EOT\n"                               // 17
      "RUN <<A cat > /a && <<B cat > /b\n"  // 18
      "a\n"                                 // 19
      "A\n"                                 // 20
      "b\n"                                 // 21
      "B\n"                                 // 22
      "USER nobody\n");                     // 23
  ASSERT_EQ(df.stages.size(), 1u);
  const std::vector<Instruction>& in = df.stages[0].instructions;
  ASSERT_EQ(in.size(), 7u);

  EXPECT_EQ(in[0].lines, (SourceRange{2, 5}));
  const auto& script = std::get<RunInstruction>(in[0].body);
  EXPECT_TRUE(script.script);
  EXPECT_EQ(script.command, (CommandLine{false, {"set -e\napt-get update\n"}}));
  EXPECT_THAT(script.heredocs,
              ElementsAre(Doc("EOF", "set -e\napt-get update\n", false, true, {3, 5})));

  // A heredoc plus a command: the shell reads the here-document itself.
  EXPECT_EQ(in[1].lines, (SourceRange{6, 8}));
  const auto& bash = std::get<RunInstruction>(in[1].body);
  EXPECT_FALSE(bash.script);
  EXPECT_EQ(bash.command, (CommandLine{false, {"<<-EOT bash\necho tab-stripped\nEOT\n"}}));
  EXPECT_THAT(bash.heredocs, ElementsAre(Doc("EOT", "echo tab-stripped\n", true, true, {7, 8})));

  const auto& python = std::get<RunInstruction>(in[2].body);
  EXPECT_FALSE(python.script);
  EXPECT_EQ(python.command, (CommandLine{false, {"python3 <<PY\nprint(\"hi\")\nPY\n"}}));

  EXPECT_EQ(in[3].lines, (SourceRange{12, 14}));
  const auto& config = std::get<CopyInstruction>(in[3].body);
  EXPECT_TRUE(config.sources.empty());
  EXPECT_EQ(config.dest, "/app/config.yaml");
  EXPECT_THAT(config.heredocs, ElementsAre(Doc("EOF", "lr: ${LR}\n", false, true, {13, 14})));

  const auto& motd = std::get<CopyInstruction>(in[4].body);
  EXPECT_EQ(motd.dest, "/etc/motd");
  EXPECT_THAT(motd.heredocs, ElementsAre(Doc("EOT", "$NOT_EXPANDED\n", true, false, {16, 17})));

  EXPECT_EQ(in[5].lines, (SourceRange{18, 22}));
  const auto& two = std::get<RunInstruction>(in[5].body);
  EXPECT_FALSE(two.script);
  EXPECT_EQ(two.command, (CommandLine{false, {"<<A cat > /a && <<B cat > /b\na\nA\nb\nB\n"}}));
  EXPECT_THAT(two.heredocs, ElementsAre(Doc("A", "a\n", false, true, {19, 20}),
                                        Doc("B", "b\n", false, true, {21, 22})));

  EXPECT_EQ(in[6], (Instruction{"USER", {23, 23}, UserInstruction{"nobody"}}));
}

TEST(Heredoc, DelimiterQuotingAndWords) {
  // '...', "..." and a backslash all quote the word: no expansion.
  for (std::string_view word : {"<<'EOF'", "<<\"EOF\"", "<<\\EOF", "<<E\"O\"F"}) {
    Dockerfile df = Parse(fmt::format("FROM scratch\nCOPY {} /x\n$A\nEOF\n", word));
    const auto& c = std::get<CopyInstruction>(df.stages.at(0).instructions.at(0).body);
    ASSERT_EQ(c.heredocs.size(), 1u) << word;
    EXPECT_EQ(c.heredocs[0].delimiter, "EOF") << word;
    EXPECT_FALSE(c.heredocs[0].expand) << word;
  }
  // Blanks after <<, a redirection right after the word, a pipe.
  Dockerfile df = Parse("FROM scratch\nRUN cat << END>/out | tee <<-'X' /y\n1\nEND\n\t2\n\tX\n");
  const auto& run = std::get<RunInstruction>(df.stages[0].instructions[0].body);
  ASSERT_EQ(run.heredocs.size(), 2u);
  EXPECT_EQ(run.heredocs[0].delimiter, "END");
  EXPECT_EQ(run.heredocs[1], Doc("X", "2\n", true, false, {5, 6}));
  EXPECT_EQ(df.stages[0].instructions[0].lines, (SourceRange{2, 6}));
  // Arithmetic shifts are no heredocs; a heredoc after one is.
  df = Parse("FROM scratch\nRUN echo $((1<<2)) && cat <<EOF\nx\nEOF\n");
  EXPECT_EQ(std::get<RunInstruction>(df.stages.at(0).instructions.at(0).body).heredocs.at(0),
            Doc("EOF", "x\n", false, true, {3, 4}));
}

TEST(Heredoc, NotHeredocs) {
  // Quoted, a here-string, exec form, a shell comment, `<<` with no word.
  for (std::string_view line :
       {"RUN echo \"<<EOF\"", "RUN echo '<<EOF'", "RUN cat <<<word", "RUN [\"<<EOF\"]",
        "RUN echo hi # <<EOF", "RUN echo a <<", "COPY a\\<<b /x", "RUN echo $((1 << 20))",
        "RUN x=1; (( x <<= 2 )); echo $x"}) {
    Dockerfile df = Parse(fmt::format("FROM scratch\n{}\nUSER u\n", line));
    ASSERT_EQ(df.stages.at(0).instructions.size(), 2u) << line;
    const Instruction& i = df.stages[0].instructions[0];
    EXPECT_EQ(i.lines, (SourceRange{2, 2})) << line;
    if (const auto* run = std::get_if<RunInstruction>(&i.body)) {
      EXPECT_TRUE(run->heredocs.empty()) << line;
    }
  }
}

TEST(Heredoc, OtherInstructionsMayHoldQuotedOrInnerDoubleAngles) {
  Dockerfile df = Parse(
      "FROM scratch\nLABEL desc=\"use <<EOF\" x=a<<b\nENV A='<<B' C=d<<e\n"
      "CMD [\"cat\", \"<<EOF\"]\nUSER u\n");
  ASSERT_EQ(df.stages.at(0).instructions.size(), 4u);
  EXPECT_EQ(std::get<LabelInstruction>(df.stages[0].instructions[0].body).labels.at(0).value,
            "\"use <<EOF\"");
}

TEST(Heredoc, ContinuationBeforeTheBodyAndEmptyBody) {
  Dockerfile df =
      Parse("FROM scratch\nCOPY --chmod=755 \\\n  <<EOF \\\n  /bin/tool\nEOF\nUSER u\n");
  const std::vector<Instruction>& in = df.stages.at(0).instructions;
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(in[0].lines, (SourceRange{2, 5}));
  const auto& c = std::get<CopyInstruction>(in[0].body);
  EXPECT_EQ(c.chmod, "755");
  EXPECT_EQ(c.dest, "/bin/tool");
  EXPECT_THAT(c.heredocs, ElementsAre(Doc("EOF", "", false, true, {5, 5})));
  EXPECT_EQ(in[1].lines, (SourceRange{6, 6}));
}

TEST(Heredoc, CopyMixesHeredocsAndContextSources) {
  Dockerfile df =
      Parse("FROM scratch\nADD <<one.txt a.txt <<two.txt /dst/\n1\none.txt\n2\ntwo.txt\n");
  const auto& c = std::get<CopyInstruction>(df.stages.at(0).instructions.at(0).body);
  EXPECT_TRUE(c.is_add);
  EXPECT_THAT(c.sources, ElementsAre("a.txt"));
  EXPECT_THAT(c.heredocs, ElementsAre(Doc("one.txt", "1\n", false, true, {3, 4}),
                                      Doc("two.txt", "2\n", false, true, {5, 6})));
}

TEST(Heredoc, Errors) {
  EXPECT_THAT(Error("FROM scratch\nRUN <<EOF\necho hi\n"),
              HasSubstr("ctx/Dockerfile:2: RUN: heredoc <<EOF is never terminated; end it with a "
                        "line holding only EOF"));
  // The delimiter must be the whole line (no tabs without <<-, no blanks).
  EXPECT_THAT(Error("FROM scratch\nUSER u\nCOPY <<EOF /x\nhi\n\tEOF\nEOF \n"),
              HasSubstr("ctx/Dockerfile:3: COPY: heredoc <<EOF is never terminated"));
  EXPECT_THAT(Error("FROM scratch\nRUN <<A <<B\na\nA\nb\n"),
              HasSubstr("ctx/Dockerfile:2: RUN: heredoc <<B is never terminated"));
  EXPECT_THAT(Error("FROM scratch\nUSER <<INVALID\nINVALID\n"),
              HasSubstr("ctx/Dockerfile:2: USER: heredocs (<<INVALID) are only supported in RUN, "
                        "COPY and ADD"));
  EXPECT_THAT(Error("FROM scratch\nCMD cat <<EOF\nx\nEOF\n"),
              HasSubstr("ctx/Dockerfile:2: CMD: heredocs (<<EOF) are only supported"));
  EXPECT_THAT(Error("FROM scratch\nONBUILD RUN <<EOF\nx\nEOF\n"),
              HasSubstr("ctx/Dockerfile:2: ONBUILD: heredocs (<<EOF) in ONBUILD triggers are not "
                        "supported"));
  EXPECT_THAT(Error("FROM scratch\nCOPY a <<EOF\nx\nEOF\n"),
              HasSubstr("ctx/Dockerfile:2: COPY: a heredoc (<<EOF) can't be the destination"));
  EXPECT_THAT(Error("FROM scratch\nCOPY << EOF /x\nx\nEOF\n"),
              HasSubstr("ctx/Dockerfile:2: COPY: heredoc << EOF must be a source of its own"));
  EXPECT_THAT(Error("FROM scratch\nRUN cat <<\"EOF\nx\n"),
              HasSubstr("ctx/Dockerfile:2: RUN: the quote in heredoc <<\"EOF is never closed"));
  EXPECT_THAT(Error("FROM scratch\nRUN cat <<''\n\n"),
              HasSubstr("ctx/Dockerfile:2: RUN: heredoc <<'' has an empty delimiter"));
}

TEST(Heredoc, LineNumbersAfterHeredocsStayRight) {
  // An error after a heredoc names its own line, counting the body lines.
  EXPECT_THAT(Error("FROM scratch\nRUN <<EOF\n1\n2\n3\nEOF\n\nCOPPY a b\n"),
              HasSubstr("ctx/Dockerfile:8: COPPY: unknown instruction"));
  // Body lines that look like comments, continuations or instructions are body.
  Dockerfile df = Parse("FROM scratch\nRUN <<EOF\n# not a comment\nFROM x \\\n\nEOF\nUSER u\n");
  const std::vector<Instruction>& in = df.stages.at(0).instructions;
  ASSERT_EQ(in.size(), 2u);
  EXPECT_EQ(std::get<RunInstruction>(in[0].body).heredocs.at(0).body,
            "# not a comment\nFROM x \\\n\n");
  EXPECT_EQ(in[1].lines, (SourceRange{7, 7}));
}

std::vector<Instruction> Expanded(std::string_view text,
                                  std::map<std::string, std::string> build_args) {
  Dockerfile df = Parse(text);
  BuildOptions options;
  options.build_args = std::move(build_args);
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, options);
  EXPECT_THAT(plan, IsOk());
  if (!plan.ok()) return {};
  absl::StatusOr<ExpandedStage> stage = ExpandStage(df, *plan, options, 0, {"HOME=/root"});
  EXPECT_THAT(stage, IsOk());
  return stage.ok() ? stage->instructions : std::vector<Instruction>{};
}

TEST(Heredoc, CopyBodiesExpandUnlessTheDelimiterIsQuoted) {
  std::vector<Instruction> in = Expanded(
      "FROM scratch\nARG LR=0.1\nENV NAME=\"a b\"\n"
      "COPY <<EOF /app/config.yaml\nlr: ${LR}\nname: \"$NAME\" '$NAME'\nhome: $HOME \\$HOME\nEOF\n"
      "COPY <<'EOF' /raw\nlr: ${LR}\nEOF\n"
      "RUN <<EOF\necho $LR\nEOF\n",
      {{"LR", "0.5"}});
  ASSERT_EQ(in.size(), 5u);
  EXPECT_EQ(std::get<CopyInstruction>(in[2].body).heredocs.at(0).body,
            "lr: 0.5\nname: \"a b\" 'a b'\nhome: /root $HOME\n");
  EXPECT_EQ(std::get<CopyInstruction>(in[3].body).heredocs.at(0).body, "lr: ${LR}\n");
  // RUN bodies are the shell's to expand.
  EXPECT_EQ(std::get<RunInstruction>(in[4].body).command.args.at(0), "echo $LR\n");
}

TEST(Heredoc, ExpandHeredocBodyFollowsTheShell) {
  VarLookup lookup = [](std::string_view n) -> std::optional<std::string> {
    if (n == "A") return "x";
    return std::nullopt;
  };
  EXPECT_EQ(*ExpandHeredocBody("$A ${A} ${B:-d} \\$A \\\\ \\n \\`\n", lookup),
            "x x d $A \\ \\n `\n");
  EXPECT_EQ(*ExpandHeredocBody("a \\\nb\n", lookup), "a b\n");
  EXPECT_EQ(*ExpandHeredocBody("it's \"$A\"\n", lookup), "it's \"x\"\n");
  EXPECT_THAT(ExpandHeredocBody("${B?unset}", lookup).status().message(), HasSubstr("B: unset"));
  Dockerfile df = Parse("FROM scratch\nCOPY <<EOF /x\n${A:-x\nEOF\n");
  absl::StatusOr<BuildPlan> plan = PlanBuild(df, {});
  ASSERT_THAT(plan, IsOk());
  EXPECT_THAT(std::string(ExpandStage(df, *plan, {}, 0, {}).status().message()),
              HasSubstr("Dockerfile:2: COPY: heredoc <<EOF: syntax error: missing '}'"));
}

}  // namespace
}  // namespace trainpkg::packager::dockerfile
