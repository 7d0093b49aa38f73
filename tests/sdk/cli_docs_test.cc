// What trainpkg generates from its command line for a person: --help wrapped
// to the terminal's width, bash and zsh completion that the shells run, and
// man pages that man renders without warnings.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "sdk/cli/help_format.h"
#include "tests/test_util/shell.h"

namespace trainpkg::cli {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ContainsRegex;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using trainpkg::testing::Sh;
using trainpkg::testing::ShellQuote;
using trainpkg::testing::ShellResult;

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

TEST(WrapTextTest, BreaksAtSpacesKeepsBreaksAndExamples) {
  EXPECT_EQ(WrapText("one two three four", 9), "one two\nthree\nfour");
  EXPECT_EQ(WrapText("first\nsecond line here", 8), "first\nsecond\nline\nhere");
  // A word longer than the width is broken after a '/', ',' or ';' in it,
  // else keeps a line of its own.
  EXPECT_EQ(WrapText("a https://example.com/a/long/path b", 10),
            "a\nhttps://\nexample.com/\na/long/\npath b");
  EXPECT_EQ(WrapText("key=a,key=b,key=c", 8), "key=a,\nkey=b,\nkey=c");
  EXPECT_EQ(WrapText("x org.opencontainers.image.source y", 10),
            "x\norg.opencontainers.image.source\ny");
  const std::string example = "  trainpkg run --config job.yaml --base-output-dir /tmp/out";
  EXPECT_EQ(WrapText(example, 20), example);
}

// Every line of `help` fits `columns`, but the examples (kept as written).
void ExpectFits(const std::string& help, size_t columns) {
  bool examples = false;
  for (const std::string& line : Lines(help)) {
    if (line == "Examples:") examples = true;
    if (examples && line.starts_with("  ")) continue;
    EXPECT_LE(line.size(), columns) << "at " << columns << " columns: \"" << line << "\"";
  }
}

TEST(HelpWidthTest, EveryCommandsHelpFitsSixtyEightyAndTwoHundredColumns) {
  for (const char* command : {"", "run", "build", "push", "jobs list", "hptune", "completion"}) {
    for (size_t columns : {60, 80, 200}) {
      ShellResult help =
          Sh("COLUMNS=" + std::to_string(columns) + " " TRAINPKG_PATH " " + command + " --help");
      ASSERT_EQ(help.code, 0) << command << ": " << help.out;
      ExpectFits(help.out, columns);
    }
  }
}

TEST(HelpWidthTest, WideTerminalsKeepDescriptionsOnOneLine) {
  ShellResult narrow = Sh("COLUMNS=60 " TRAINPKG_PATH " run --help");
  ShellResult wide = Sh("COLUMNS=200 " TRAINPKG_PATH " run --help");
  EXPECT_LT(Lines(wide.out).size(), Lines(narrow.out).size());
}

// The words bash offers after `line` (the last word is being completed),
// with the script `trainpkg completion bash` prints.
std::string BashCompletes(const std::string& words) {
  ShellResult result =
      Sh("bash --norc --noprofile -c " +
         ShellQuote("source <(" TRAINPKG_PATH " completion bash) && COMP_WORDS=(" + words +
                    ") && COMP_CWORD=$((${#COMP_WORDS[@]} - 1)) && _trainpkg && "
                    "echo \"${COMPREPLY[*]}\"") +
         " 2>&1");
  EXPECT_EQ(result.code, 0) << result.out;
  return result.out.substr(0, result.out.find_last_not_of('\n') + 1);
}

TEST(BashCompletionTest, CompletesCommandsSubcommandsFlagsAndChoices) {
  EXPECT_EQ(BashCompletes("trainpkg bu"), "build");
  EXPECT_EQ(BashCompletes("trainpkg jobs l"), "list logs");
  EXPECT_EQ(BashCompletes("trainpkg run --conf"), "--config");
  EXPECT_EQ(BashCompletes("trainpkg run --backend ''"), "local vertex k8s slurm ssh");
  // The value of a flag is not taken for a command.
  EXPECT_EQ(BashCompletes("trainpkg run --display-name jobs --valid"), "--validate-only");
  // bash splits --backend=v at '=' (COMP_WORDBREAKS).
  EXPECT_EQ(BashCompletes("trainpkg run --backend = v"), "vertex");
  // An argument of fixed values is offered as commands are.
  EXPECT_EQ(BashCompletes("trainpkg completion ''"), "bash zsh");
}

TEST(BashCompletionTest, FlagsThatTakeFilesCompleteFiles) {
  const fs::path dir = fs::temp_directory_path() / ("cli_docs_test_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "job.yaml") << "{}";
  EXPECT_EQ(BashCompletes("trainpkg run --config " + ShellQuote((dir / "jo").string())),
            (dir / "job.yaml").string());
  fs::remove_all(dir);
}

// What zsh's completion offers for `words` (CURRENT: the last), with the
// completion system's functions replaced by ones that print their words.
std::string ZshCompletes(const std::string& words, const std::string& prefix) {
  const std::string script =
      "_describe() { local a=$4; local e; for e in ${(P)a}; do print -r -- ${e%%:*}; done }\n"
      "_files() { print -r -- FILES }\n"
      "compadd() { local a=$2; print -l -r -- ${(P)a} }\n"
      "words=(" +
      words + ") CURRENT=${#words} PREFIX=" + ShellQuote(prefix) +
      "\n"
      "source <(" TRAINPKG_PATH " completion zsh)\n";
  ShellResult result = Sh("zsh -f -c " + ShellQuote(script) + " 2>&1");
  EXPECT_EQ(result.code, 0) << result.out;
  return result.out;
}

TEST(ZshCompletionTest, CompletesCommandsSubcommandsFlagsAndChoices) {
  EXPECT_THAT(ZshCompletes("trainpkg ''", ""), AllOf(HasSubstr("build\n"), HasSubstr("run\n")));
  EXPECT_EQ(ZshCompletes("trainpkg jobs ''", ""), "list\ndescribe\nlogs\ncancel\n");
  EXPECT_THAT(ZshCompletes("trainpkg run --conf", "--conf"), HasSubstr("--config\n"));
  EXPECT_EQ(ZshCompletes("trainpkg run --backend ''", ""), "local\nvertex\nk8s\nslurm\nssh\n");
  EXPECT_EQ(ZshCompletes("trainpkg run --config ''", ""), "FILES\n");
  EXPECT_EQ(ZshCompletes("trainpkg completion ''", ""), "bash\nzsh\n");
}

TEST(ManPageTest, EveryCommandHasAPageManRendersWithoutWarnings) {
  const fs::path dir = fs::temp_directory_path() / ("cli_docs_man_" + std::to_string(::getpid()));
  ShellResult docs = Sh(TRAINPKG_DOCS_PATH " " + ShellQuote(dir.string()) + " 2>&1");
  ASSERT_EQ(docs.code, 0) << docs.out;
  const fs::path man1 = dir / "man" / "man1";
  for (const char* page : {"trainpkg", "trainpkg-run", "trainpkg-build", "trainpkg-jobs",
                           "trainpkg-jobs-list", "trainpkg-completion", "trainpkg-help"}) {
    const fs::path path = man1 / (std::string(page) + ".1");
    ASSERT_TRUE(fs::exists(path)) << path;
    ShellResult warnings = Sh("groff -man -Tutf8 -ww -z " + ShellQuote(path.string()) + " 2>&1");
    EXPECT_EQ(warnings.code, 0) << page;
    EXPECT_THAT(warnings.out, IsEmpty()) << page;
  }
  ShellResult run =
      Sh("MANWIDTH=80 man -l " + ShellQuote((man1 / "trainpkg-run.1").string()) + " 2>&1 | col -b");
  EXPECT_THAT(run.out,
              AllOf(ContainsRegex("trainpkg-run +- Run a CustomJob"), HasSubstr("--config TEXT"),
                    HasSubstr("SEE ALSO"), HasSubstr("trainpkg(1)")));
  // A flag without a value shows none.
  EXPECT_THAT(run.out, AllOf(HasSubstr("--detach\n"), Not(HasSubstr("--detach VALUE"))));
  ShellResult jobs = Sh("MANWIDTH=80 man -l " + ShellQuote((man1 / "trainpkg-jobs.1").string()) +
                        " 2>&1 | col -b");
  EXPECT_THAT(jobs.out, AllOf(HasSubstr("COMMANDS"), HasSubstr("trainpkg-jobs-list(1)")));
  ShellResult completion =
      Sh("MANWIDTH=80 man -l " + ShellQuote((man1 / "trainpkg-completion.1").string()) +
         " 2>&1 | col -b");
  EXPECT_THAT(completion.out,
              AllOf(HasSubstr("EXAMPLES"), HasSubstr("source <(trainpkg completion bash)")));
  // The completion scripts land beside them, as /usr/share lays them out.
  EXPECT_TRUE(fs::exists(dir / "bash-completion" / "completions" / "trainpkg"));
  EXPECT_TRUE(fs::exists(dir / "zsh" / "vendor-completions" / "_trainpkg"));
  fs::remove_all(dir);
}

TEST(CompletionCommandTest, AnUnknownShellIsAUsageError) {
  ShellResult fish = Sh(TRAINPKG_PATH " completion fish 2>&1");
  EXPECT_EQ(fish.code, 2) << fish.out;
  EXPECT_THAT(fish.out, AllOf(HasSubstr("trainpkg: error:"), HasSubstr("fish")));
}

}  // namespace
}  // namespace trainpkg::cli
