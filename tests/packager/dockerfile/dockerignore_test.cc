#include "packager/dockerfile/dockerignore.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::dockerfile {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

DockerIgnore Parse(std::string_view text) {
  absl::StatusOr<DockerIgnore> d = DockerIgnore::Parse(text);
  EXPECT_THAT(d, IsOk());
  return d.ok() ? *d : *DockerIgnore::Parse("");
}

TEST(DockerIgnore, CommentsBlanksAndNormalisation) {
  DockerIgnore d = Parse("# comment\n\n  /build/  \n./a/../tmp//x\n!  keep\n \t# not a comment\n");
  EXPECT_THAT(d.patterns(), ElementsAre("build", "tmp/x", "!keep", "# not a comment"));
  EXPECT_TRUE(d.IsExcluded("build"));
  EXPECT_TRUE(d.IsExcluded("build/out/a.o"));  // contents of an excluded directory
  EXPECT_TRUE(d.IsExcluded("./tmp/x"));
  EXPECT_FALSE(d.IsExcluded("src/build"));  // patterns are anchored at the root
  EXPECT_FALSE(d.IsExcluded("."));
}

TEST(DockerIgnore, Wildcards) {
  DockerIgnore d = Parse("*.pyc\n*/temp*\ndata?\n[a-c]x\n[^a-c]y\n");
  EXPECT_TRUE(d.IsExcluded("m.pyc"));
  EXPECT_FALSE(d.IsExcluded("pkg/m.pyc"));  // * does not cross '/'
  EXPECT_TRUE(d.IsExcluded("sub/temporary.txt"));
  EXPECT_FALSE(d.IsExcluded("a/b/temp"));
  EXPECT_TRUE(d.IsExcluded("data1"));
  EXPECT_FALSE(d.IsExcluded("data12"));
  EXPECT_TRUE(d.IsExcluded("bx"));
  EXPECT_FALSE(d.IsExcluded("dx"));
  EXPECT_TRUE(d.IsExcluded("dy"));
  EXPECT_FALSE(d.IsExcluded("ay"));
}

TEST(DockerIgnore, DoubleStar) {
  DockerIgnore d = Parse("**/*.go\nlogs/**\n**/__pycache__\na/**/z\n");
  EXPECT_TRUE(d.IsExcluded("main.go"));
  EXPECT_TRUE(d.IsExcluded("x/y/main.go"));
  EXPECT_TRUE(d.IsExcluded("logs/a/b"));
  EXPECT_TRUE(d.IsExcluded("__pycache__/m.pyc"));
  EXPECT_TRUE(d.IsExcluded("pkg/sub/__pycache__/m.pyc"));
  EXPECT_TRUE(d.IsExcluded("a/z"));
  EXPECT_TRUE(d.IsExcluded("a/b/c/z"));
  EXPECT_FALSE(d.IsExcluded("a/bz"));
  DockerIgnore suffix = Parse("**foo\n");  // patternmatcher's suffix rule
  EXPECT_TRUE(suffix.IsExcluded("barfoo"));
  EXPECT_TRUE(suffix.IsExcluded("x/barfoo"));
}

TEST(DockerIgnore, ExceptionsLastMatchWins) {
  DockerIgnore d = Parse("*.md\n!README.md\nREADME-secret.md\n");
  EXPECT_TRUE(d.IsExcluded("CHANGES.md"));
  EXPECT_FALSE(d.IsExcluded("README.md"));
  EXPECT_TRUE(d.IsExcluded("README-secret.md"));
  DockerIgnore order = Parse("!README.md\n*.md\n");
  EXPECT_TRUE(order.IsExcluded("README.md"));
}

TEST(DockerIgnore, ExceptionReincludesInsideExcludedDirectory) {
  DockerIgnore d = Parse("data\n!data/keep\n*\n!src\n");
  EXPECT_TRUE(d.IsExcluded("data"));
  EXPECT_TRUE(d.IsExcluded("other.txt"));
  EXPECT_FALSE(d.IsExcluded("src/main.cc"));
  DockerIgnore e = Parse("data\n!data/keep\n");
  EXPECT_TRUE(e.IsExcluded("data/drop"));
  EXPECT_FALSE(e.IsExcluded("data/keep"));
  EXPECT_FALSE(e.IsExcluded("data/keep/x"));
  EXPECT_TRUE(e.MustWalk("data"));
  EXPECT_FALSE(e.MustWalk("other"));
  DockerIgnore glob = Parse("vendor\n!vendor/**/LICENSE\n");
  EXPECT_TRUE(glob.MustWalk("vendor"));
  EXPECT_TRUE(glob.MustWalk("vendor/a/b"));
  EXPECT_FALSE(Parse("vendor\n").MustWalk("vendor"));
}

TEST(DockerIgnore, KeepFileSendsDockerfileAndIgnoreFile) {
  DockerIgnore d = Parse("*\n");
  d.KeepFile("Dockerfile");
  d.KeepFile(".dockerignore");
  EXPECT_FALSE(d.IsExcluded("Dockerfile"));
  EXPECT_FALSE(d.IsExcluded(".dockerignore"));
  EXPECT_TRUE(d.IsExcluded("main.py"));
  DockerIgnore none = Parse("*.o\n");
  none.KeepFile("Dockerfile");
  EXPECT_THAT(none.patterns(), ElementsAre("*.o"));
}

TEST(DockerIgnore, Errors) {
  absl::StatusOr<DockerIgnore> bang = DockerIgnore::Parse("a\n!\n", "ctx/.dockerignore");
  ASSERT_FALSE(bang.ok());
  EXPECT_THAT(std::string(bang.status().message()),
              HasSubstr("ctx/.dockerignore:2: illegal exclusion pattern \"!\""));
  absl::StatusOr<DockerIgnore> cls = DockerIgnore::Parse("[abc\n");
  ASSERT_FALSE(cls.ok());
  EXPECT_THAT(std::string(cls.status().message()),
              HasSubstr(".dockerignore:1: bad pattern '[abc': unterminated character class"));
}

}  // namespace
}  // namespace trainpkg::packager::dockerfile
