// One test per error kind: each names the file, the line, the instruction,
// what was wrong and what would be valid.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "packager/dockerfile/dockerfile.h"
#include "tests/packager/dockerfile/parse_test_util.h"

namespace trainpkg::packager::dockerfile {
namespace {

using ::testing::AllOf;
using testing::Error;
using ::testing::HasSubstr;

TEST(DockerfileErrors, UnknownInstructionSuggestsNearest) {
  EXPECT_THAT(Error("FROM scratch\nCOPPY a b\n"),
              AllOf(HasSubstr("ctx/Dockerfile:2: COPPY: unknown instruction (did you mean COPY?)"),
                    HasSubstr("valid instructions: ADD, ARG")));
}

TEST(DockerfileErrors, UnknownFlagListsAcceptedFlags) {
  EXPECT_THAT(Error("FROM scratch\n\nCOPY --chmown=1 a b\n"),
              AllOf(HasSubstr("ctx/Dockerfile:3: COPY: unknown flag --chmown (did you mean "
                              "--chown?)"),
                    HasSubstr("it accepts --from, --chown, --chmod, --link")));
  EXPECT_THAT(
      Error("FROM scratch\nRUN --mount=type=cache,target=/x make\n"),
      AllOf(HasSubstr("ctx/Dockerfile:2: RUN: flag --mount=type=cache,target=/x is not supported"),
            HasSubstr("RUN accepts only --network=default|none")));
  EXPECT_THAT(Error("FROM scratch\nRUN --network=host make\n"),
              AllOf(HasSubstr("ctx/Dockerfile:2: RUN: --network=host is not supported"),
                    HasSubstr("network.host entitlement")));
  EXPECT_THAT(Error("FROM scratch\nRUN --network=bridge make\n"),
              HasSubstr("ctx/Dockerfile:2: RUN: --network=bridge is not valid; write "
                        "--network=default or --network=none"));
  EXPECT_THAT(Error("FROM scratch\nRUN --network make\n"),
              HasSubstr("ctx/Dockerfile:2: RUN: flag --network needs a value"));
  EXPECT_THAT(Error("FROM scratch\nCOPY --from a b\n"),
              HasSubstr("ctx/Dockerfile:2: COPY: flag --from needs a value; write --from=VALUE"));
  EXPECT_THAT(Error("FROM scratch\nCOPY --link=yes a b\n"),
              HasSubstr("ctx/Dockerfile:2: COPY: flag --link expects a boolean"));
  EXPECT_THAT(Error("FROM scratch\nCOPY --chown=1 --chown=2 a b\n"),
              HasSubstr("ctx/Dockerfile:2: COPY: flag --chown given more than once"));
}

TEST(DockerfileErrors, MissingArguments) {
  EXPECT_THAT(Error("FROM scratch\nCOPY onlyone\n"),
              AllOf(HasSubstr("ctx/Dockerfile:2: COPY: needs at least two arguments"),
                    HasSubstr("SRC... DEST")));
  EXPECT_THAT(Error("FROM\n"), HasSubstr("ctx/Dockerfile:1: FROM: needs one or three arguments"));
  EXPECT_THAT(Error("FROM a b\n"), HasSubstr("ctx/Dockerfile:1: FROM: needs one or three"));
  EXPECT_THAT(Error("FROM scratch\nWORKDIR\n"),
              HasSubstr("ctx/Dockerfile:2: WORKDIR: needs an argument"));
  EXPECT_THAT(Error("FROM scratch\nENV A\n"),
              HasSubstr("ctx/Dockerfile:2: ENV: 'A' has no value; write ENV KEY=VALUE"));
  EXPECT_THAT(Error("FROM scratch\nRUN\n"), HasSubstr("ctx/Dockerfile:2: RUN: needs a command"));
  EXPECT_THAT(Error("FROM scratch\nHEALTHCHECK CMD\n"),
              HasSubstr("ctx/Dockerfile:2: HEALTHCHECK: missing command after HEALTHCHECK CMD"));
}

TEST(DockerfileErrors, BadJsonForm) {
  EXPECT_THAT(Error("FROM scratch\nENTRYPOINT [\"python3\", 3]\n"),
              HasSubstr("ctx/Dockerfile:2: ENTRYPOINT: JSON form must be an array of strings, "
                        "found 3"));
  EXPECT_THAT(
      Error("FROM scratch\nSHELL /bin/bash -c\n"),
      HasSubstr("ctx/Dockerfile:2: SHELL: needs the JSON form; write SHELL [\"/bin/bash\""));
}

TEST(DockerfileErrors, UnterminatedQuotes) {
  EXPECT_THAT(Error("FROM scratch\nENV A=\"open\n"),
              HasSubstr("ctx/Dockerfile:2: ENV: unexpected end of statement while looking for "
                        "matching double-quote in '\"open'"));
  EXPECT_THAT(Error("FROM scratch\nLABEL a='x\n"),
              HasSubstr("ctx/Dockerfile:2: LABEL: unexpected end of statement while looking for "
                        "matching single-quote"));
  EXPECT_THAT(Error("FROM scratch\nWORKDIR ${A\n"),
              HasSubstr("ctx/Dockerfile:2: WORKDIR: syntax error: missing '}'"));
}

TEST(DockerfileErrors, HeredocNeverTerminated) {
  EXPECT_THAT(Error("FROM scratch\nRUN <<EOF\necho hi\n"),
              HasSubstr("ctx/Dockerfile:2: RUN: heredoc <<EOF is never terminated"));
}

TEST(DockerfileErrors, RemoteAddRejected) {
  EXPECT_THAT(Error("FROM scratch\nADD https://example.com/x.tgz /x\n"),
              HasSubstr("ctx/Dockerfile:2: ADD: remote source 'https://example.com/x.tgz' is not "
                        "supported"));
}

TEST(DockerfileErrors, StageNames) {
  EXPECT_THAT(Error("FROM scratch AS 1st\n"),
              HasSubstr("ctx/Dockerfile:1: FROM: invalid stage name '1st'"));
  EXPECT_THAT(Error("FROM scratch AS a\nFROM scratch AS A\n"),
              HasSubstr("ctx/Dockerfile:2: FROM: duplicate stage name 'a'"));
}

TEST(DockerfileErrors, InstructionBeforeFromAndNoFrom) {
  EXPECT_THAT(Error("ENV A=1\nFROM scratch\n"),
              HasSubstr("ctx/Dockerfile:1: ENV: comes before the first FROM; only ARG may"));
  EXPECT_THAT(Error("# just a comment\n"), HasSubstr("ctx/Dockerfile: file with no instructions"));
  EXPECT_THAT(Error("ARG A\n"), HasSubstr("ctx/Dockerfile: no FROM instruction"));
}

TEST(DockerfileErrors, Directives) {
  EXPECT_THAT(Error("# escape=x\nFROM scratch\n"),
              HasSubstr("ctx/Dockerfile:1: invalid escape token 'x'; valid: \\ or `"));
  EXPECT_THAT(Error("# escape=`\n# escape=\\\nFROM scratch\n"),
              HasSubstr("ctx/Dockerfile:2: only one 'escape' parser directive"));
}

TEST(DockerfileErrors, InvalidValues) {
  EXPECT_THAT(Error("FROM scratch\nEXPOSE 80/tcpx\n"),
              HasSubstr("ctx/Dockerfile:2: EXPOSE: invalid port '80/tcpx': unknown protocol"));
  EXPECT_THAT(Error("FROM scratch\nEXPOSE 90-80\n"), HasSubstr("range ends before it starts"));
  EXPECT_THAT(Error("FROM scratch\nHEALTHCHECK --interval=10 CMD true\n"),
              HasSubstr("ctx/Dockerfile:2: HEALTHCHECK: invalid duration '10'"));
  EXPECT_THAT(Error("FROM scratch\nHEALTHCHECK --retries=-1 CMD true\n"),
              HasSubstr("--retries=-1 is not a non-negative integer"));
  EXPECT_THAT(Error("FROM scratch\nHEALTHCHECK PING x\n"), HasSubstr("unknown type 'PING'"));
  EXPECT_THAT(Error("FROM scratch\nONBUILD FROM x\n"),
              HasSubstr("ctx/Dockerfile:2: ONBUILD: FROM isn't allowed as an ONBUILD trigger"));
  EXPECT_THAT(Error("FROM scratch\nENV =x\n"), HasSubstr("ENV names can not be blank"));
  EXPECT_THAT(Error("FROM scratch\nENV A=1 B\n"), HasSubstr("can't find '=' in 'B'"));
  EXPECT_THAT(Error("FROM scratch\nWORKDIR ${A:x}\n"),
              HasSubstr("ctx/Dockerfile:2: WORKDIR: unsupported modifier (:x) in substitution"));
}

TEST(DockerfileErrors, LineOfAContinuedInstructionIsItsFirstLine) {
  EXPECT_THAT(Error("FROM scratch\n\nCOPY \\\n  --bogus=1 \\\n  a b\n"),
              HasSubstr("ctx/Dockerfile:3: COPY: unknown flag --bogus"));
}

}  // namespace
}  // namespace trainpkg::packager::dockerfile
