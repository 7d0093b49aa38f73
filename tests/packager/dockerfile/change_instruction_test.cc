// `trainpkg import --change` (issue #17 item 2): one instruction of Docker's
// --change list, parsed by the Dockerfile parser; anything else refused with
// the text and the reason.
#include "packager/dockerfile/change_instruction.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <string>

#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::dockerfile {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ChangeInstruction, DockersListParsesAsTheDockerfileWouldHaveIt) {
  for (const char* text : {"CMD [\"bash\"]", "ENTRYPOINT /bin/sh", "ENV A=1 B=2", "EXPOSE 80/udp",
                           "LABEL a=b", "ONBUILD RUN make", "STOPSIGNAL SIGTERM", "USER 1000:1000",
                           "VOLUME /data", "WORKDIR /srv", "env lower=case"}) {
    absl::StatusOr<Instruction> parsed = ParseChangeInstruction(text);
    EXPECT_THAT(parsed, IsOk()) << text;
  }
  absl::StatusOr<Instruction> cmd = ParseChangeInstruction("CMD echo \"hi there\"");
  ASSERT_THAT(cmd, IsOk());
  const auto& body = std::get<CmdInstruction>(cmd->body);
  EXPECT_FALSE(body.command.exec_form);
  EXPECT_THAT(body.command.args, ElementsAre("echo \"hi there\""));
  absl::StatusOr<Instruction> env = ParseChangeInstruction("ENV PATH=/opt/bin:$PATH");
  ASSERT_THAT(env, IsOk());
  EXPECT_EQ(std::get<EnvInstruction>(env->body).vars.at(0).value, "/opt/bin:$PATH")
      << "expanded later, against the config's Env";
}

TEST(ChangeInstruction, OtherInstructionsAndSyntaxErrorsNameTheText) {
  auto error = [](const std::string& text) {
    absl::StatusOr<Instruction> parsed = ParseChangeInstruction(text);
    EXPECT_FALSE(parsed.ok()) << text;
    EXPECT_EQ(parsed.status().code(), absl::StatusCode::kInvalidArgument);
    return std::string(parsed.status().message());
  };
  EXPECT_EQ(error("RUN apt-get update"),
            "--change \"RUN apt-get update\": RUN cannot be a change; the changes are CMD, "
            "ENTRYPOINT, ENV, EXPOSE, LABEL, ONBUILD, STOPSIGNAL, USER, VOLUME, WORKDIR");
  for (const char* text : {"FROM debian", "COPY a b", "ADD a b", "ARG X", "SHELL [\"sh\"]",
                           "HEALTHCHECK NONE", "MAINTAINER me"}) {
    EXPECT_THAT(error(text), HasSubstr("cannot be a change")) << text;
  }
  EXPECT_EQ(error(""), "--change \"\": no instruction");
  EXPECT_EQ(error("# only a comment"), "--change \"# only a comment\": no instruction");
  EXPECT_THAT(error("ENV A=1\nCMD x"), HasSubstr("more than one instruction"));
  EXPECT_THAT(error("ENV"), HasSubstr("--change \"ENV\": ENV: needs at least one argument"));
  EXPECT_THAT(error("ENVV A=1"), HasSubstr("--change \"ENVV A=1\": "));
}

}  // namespace
}  // namespace trainpkg::packager::dockerfile
