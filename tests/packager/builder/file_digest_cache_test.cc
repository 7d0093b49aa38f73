// FileDigestCache: parallel prefetch of content digests for a cold build.
#include "packager/builder/file_digest_cache.h"

#include <filesystem>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/builder/build_context.h"
#include "packager/dockerfile/dockerignore.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
using testing::ScratchDir;
using testing::WriteFile;

constexpr char kAbcSha256[] = "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad";

std::vector<const ContextFile*> RegularFiles(const BuildContext& ctx) {
  std::vector<const ContextFile*> files;
  for (const ContextFile* f : ctx.Beneath(".")) {
    if (f->type == ContextFile::Type::kFile) files.push_back(f);
  }
  return files;
}

TEST(FileDigestCacheTest, PrefetchOnThreadsGivesTheDigestsHashingOneByOneGives) {
  ScratchDir dir;
  WriteFile(dir.path() / "abc", "abc");
  for (int i = 0; i < 9; ++i) {
    WriteFile(dir.path() / "d" / ("f" + std::to_string(i)), std::string(1000 * i, 'a' + i));
  }
  auto ctx = BuildContext::Scan(dir.path(), dockerfile::DockerIgnore());
  ASSERT_THAT(ctx, IsOk());
  const std::vector<const ContextFile*> files = RegularFiles(*ctx);
  ASSERT_EQ(files.size(), 10u);

  FileDigestCache threaded = FileDigestCache::Load("");
  ASSERT_THAT(threaded.Prefetch(ctx->root(), files, 3), IsOk());
  EXPECT_EQ(threaded.files_hashed(), 10);
  FileDigestCache serial = FileDigestCache::Load("");
  for (const ContextFile* f : files) {
    auto got = threaded.Digest(ctx->root() / f->rel, *f);
    auto want = serial.Digest(ctx->root() / f->rel, *f);
    ASSERT_TRUE(got.ok() && want.ok());
    EXPECT_EQ(*got, *want) << f->rel;
    if (f->rel == "abc") {
      EXPECT_EQ(*got, kAbcSha256);
    }
  }
  EXPECT_EQ(threaded.files_hashed(), 10) << "prefetched files are not read again";
}

TEST(FileDigestCacheTest, PrefetchReportsAFileThatVanished) {
  ScratchDir dir;
  WriteFile(dir.path() / "a", "a");
  WriteFile(dir.path() / "b", "b");
  auto ctx = BuildContext::Scan(dir.path(), dockerfile::DockerIgnore());
  ASSERT_THAT(ctx, IsOk());
  fs::remove(dir.path() / "b");
  FileDigestCache cache = FileDigestCache::Load("");
  absl::Status status = cache.Prefetch(ctx->root(), RegularFiles(*ctx), 2);
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(std::string(status.message()), ::testing::HasSubstr("/b"));
}

}  // namespace
}  // namespace trainpkg::packager::builder
