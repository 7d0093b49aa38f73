#include "sdk/internal/autopackage_dockerfile.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace trainpkg::sdk::internal {
namespace {

using ::testing::ElementsAre;

jobspec::Autopackaging Spec() {
  jobspec::Autopackaging spec;
  spec.executor_image_uri = "reg/py:1";
  spec.local_package_path = "pkg";
  spec.python_module = "trainer.task";
  return spec;
}

// gcloud's order: setup.py, requirements.txt, extra packages, requirements,
// extra dirs, the main file's directory, then the entrypoint.
TEST(AutopackageDockerfileTest, EveryKeyInGcloudsOrder) {
  jobspec::Autopackaging spec = Spec();
  spec.requirements = {"numpy>=1.2"};
  spec.extra_packages = {"deps/greet-0.1-py3-none-any.whl"};
  spec.extra_dirs = {"data"};
  EXPECT_EQ(AutopackageDockerfileBody(spec, {.has_setup_py = true, .has_requirements_txt = true}),
            "ARG PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore "
            "PIP_DISABLE_PIP_VERSION_CHECK=1\n"
            "RUN [\"mkdir\",\"-m\",\"777\",\"-p\",\"/usr/app\",\"/home\"]\n"
            "WORKDIR /usr/app\nENV HOME=/home\nENV PYTHONDONTWRITEBYTECODE=1\n"
            "COPY [\"setup.py\",\"./setup.py\"]\n"
            "RUN [\"python3\",\"-m\",\"pip\",\"install\",\"--no-cache-dir\",\".\"]\n"
            "COPY [\"requirements.txt\",\"./requirements.txt\"]\n"
            "RUN [\"python3\",\"-m\",\"pip\",\"install\",\"--no-cache-dir\",\"-r\","
            "\"./requirements.txt\"]\n"
            "COPY [\"deps/greet-0.1-py3-none-any.whl\",\"./greet-0.1-py3-none-any.whl\"]\n"
            "RUN [\"python3\",\"-m\",\"pip\",\"install\",\"--no-cache-dir\","
            "\"./greet-0.1-py3-none-any.whl\"]\n"
            "RUN [\"python3\",\"-m\",\"pip\",\"install\",\"--no-cache-dir\",\"--upgrade\","
            "\"numpy>=1.2\"]\n"
            "COPY [\"data\",\"data\"]\n"
            "COPY [\"trainer\",\"trainer\"]\n"
            "ENTRYPOINT [\"python3\",\"-m\",\"trainer.task\"]\n");
  EXPECT_THAT(CopiedPaths(spec, {.has_setup_py = true, .has_requirements_txt = true}),
              ElementsAre("setup.py", "requirements.txt", "deps/greet-0.1-py3-none-any.whl", "data",
                          "trainer"));
}

TEST(AutopackageDockerfileTest, ModuleAtTheTopCopiesTheWholePackage) {
  jobspec::Autopackaging spec = Spec();
  spec.python_module = "task";
  EXPECT_EQ(MainFile(spec), "task.py");
  EXPECT_THAT(CopiedPaths(spec, {}), ElementsAre("."));
  EXPECT_THAT(AutopackageDockerfileBody(spec, {}),
              ::testing::HasSubstr("COPY [\".\",\".\"]\nENTRYPOINT [\"python3\",\"-m\",\"task\"]"));
}

TEST(AutopackageDockerfileTest, PythonScriptRunsWithPython3OtherScriptsWithBash) {
  jobspec::Autopackaging spec = Spec();
  spec.python_module.clear();
  spec.script = "bin/train.py";
  EXPECT_EQ(MainFile(spec), "bin/train.py");
  EXPECT_THAT(AutopackageDockerfileBody(spec, {}),
              ::testing::HasSubstr("COPY [\"bin\",\"bin\"]\n"
                                   "ENTRYPOINT [\"python3\",\"bin/train.py\"]\n"));
  spec.script = "run.sh";
  EXPECT_THAT(AutopackageDockerfileBody(spec, {}),
              ::testing::HasSubstr("ENTRYPOINT [\"/bin/bash\",\"run.sh\"]\n"));
}

}  // namespace
}  // namespace trainpkg::sdk::internal
