#include "registry/blob_locations.h"

#include <sys/stat.h>

#include <filesystem>
#include <random>

#include "base/file_util.h"
#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/digest_builder.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::registry {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

Repository Repo(const std::string& name) { return *ParseRepository(name); }

class BlobLocationsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           fmt::format("trainpkg-blob-locations-{}-{}", ::getpid(), std::random_device{}());
  }
  void TearDown() override {
    std::error_code ec;
    std::filesystem::remove_all(dir_, ec);
  }
  std::filesystem::path dir_;
  oci::Digest a_ = oci::ComputeDigest("a", oci::DigestAlgorithm::kSha256);
  oci::Digest b_ = oci::ComputeDigest("b", oci::DigestAlgorithm::kSha256);
};

TEST_F(BlobLocationsTest, FindsMostRecentFirstOnTheAskedRegistryOnly) {
  BlobLocations locations;
  locations.Record(a_, Repo("r.test:5000/team/app"));
  locations.Record(a_, Repo("other.test/team/app"));
  locations.Record(a_, Repo("r.test:5000/base/img"));
  locations.Record(a_, Repo("r.test:5000/team/app"));  // seen again: now the most recent
  EXPECT_THAT(locations.Find(a_, "r.test:5000"),
              ElementsAre(Repo("r.test:5000/team/app"), Repo("r.test:5000/base/img")));
  EXPECT_THAT(locations.Find(b_, "r.test:5000"), IsEmpty());
  EXPECT_THAT(locations.Save(), IsOk()) << "no file: nothing to write";
}

TEST_F(BlobLocationsTest, KeepsTheNewestRepositoriesPerBlob) {
  BlobLocations locations;
  for (size_t i = 0; i < BlobLocations::kMaxRepositoriesPerBlob + 2; ++i) {
    locations.Record(a_, Repo(fmt::format("r.test/repo{}", i)));
  }
  std::vector<Repository> found = locations.Find(a_, "r.test");
  ASSERT_EQ(found.size(), BlobLocations::kMaxRepositoriesPerBlob);
  EXPECT_EQ(found.front(),
            Repo(fmt::format("r.test/repo{}", BlobLocations::kMaxRepositoriesPerBlob + 1)));
}

TEST_F(BlobLocationsTest, SavesAndReopens) {
  std::filesystem::path file = dir_ / "home" / "blob-locations.json";
  auto first = BlobLocations::Open(file);
  ASSERT_THAT(first, IsOk());
  (*first)->Record(a_, Repo("localhost:5000/team/app"));
  (*first)->Record(b_, Repo("gcr.io/p/app"));
  ASSERT_THAT((*first)->Save(), IsOk());
  auto again = BlobLocations::Open(file);
  ASSERT_THAT(again, IsOk());
  EXPECT_THAT((*again)->Find(a_, "localhost:5000"), ElementsAre(Repo("localhost:5000/team/app")));
  EXPECT_THAT((*again)->Find(b_, "gcr.io"), ElementsAre(Repo("gcr.io/p/app")));
}

// Issue #16 finding 17: the file names the repositories a user pushed to
// and pulled from; like the job store, only its owner may read it, whatever
// the umask, and a file an older trainpkg left 0644 is replaced by a 0600 one.
TEST_F(BlobLocationsTest, SavesAPrivateFileWhateverTheUmask) {
  const std::filesystem::path file = dir_ / "blob-locations.json";
  std::filesystem::create_directories(dir_);
  ASSERT_THAT(base::WriteFileAtomic(file, "{}"), IsOk());
  ASSERT_EQ(::chmod(file.c_str(), 0644), 0);
  for (mode_t mask : {mode_t{022}, mode_t{0}}) {
    auto locations = BlobLocations::Open(file);
    ASSERT_THAT(locations, IsOk());
    (*locations)->Record(mask == 0 ? a_ : b_, Repo("localhost:5000/team/app"));
    const mode_t old = ::umask(mask);
    absl::Status saved = (*locations)->Save();
    ::umask(old);
    ASSERT_THAT(saved, IsOk());
    struct stat st {};
    ASSERT_EQ(::stat(file.c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 07777, 0600u) << "umask " << std::oct << mask;
  }
}

TEST_F(BlobLocationsTest, SavesNothingWhenNothingChanged) {
  std::filesystem::path file = dir_ / "blob-locations.json";
  auto first = BlobLocations::Open(file);
  ASSERT_THAT(first, IsOk());
  (*first)->Record(a_, Repo("localhost:5000/team/app"));
  ASSERT_THAT((*first)->Save(), IsOk());
  auto again = BlobLocations::Open(file);
  ASSERT_THAT(again, IsOk());
  (*again)->Record(a_, Repo("localhost:5000/team/app"));  // already the most recent
  std::filesystem::remove(file);
  ASSERT_THAT((*again)->Save(), IsOk());
  EXPECT_FALSE(std::filesystem::exists(file)) << "a re-push rewrites (and fsyncs) nothing";
  (*again)->Record(b_, Repo("localhost:5000/team/app"));
  ASSERT_THAT((*again)->Save(), IsOk());
  EXPECT_TRUE(std::filesystem::exists(file));
}

TEST_F(BlobLocationsTest, ACorruptFileStartsEmpty) {
  std::filesystem::path file = dir_ / "blob-locations.json";
  ASSERT_THAT(base::WriteFileAtomic(file, "{not json"), IsOk());
  auto opened = BlobLocations::Open(file);
  ASSERT_THAT(opened, IsOk());
  EXPECT_THAT((*opened)->Find(a_, "r.test"), IsEmpty());
  ASSERT_TRUE(base::WriteFileAtomic(
                  file, fmt::format(R"({{"not-a-digest":["r.test/x"],"{}":["r.test/ok",7,"Bad"]}})",
                                    a_.ToString()))
                  .ok());
  opened = BlobLocations::Open(file);
  ASSERT_THAT(opened, IsOk());
  EXPECT_THAT((*opened)->Find(a_, "r.test"), ElementsAre(Repo("r.test/ok")))
      << "entries that do not parse are dropped";
}

TEST_F(BlobLocationsTest, AnEmptyFileStartsEmpty) {
  // What a crash may leave of a Save, which does not fsync.
  std::filesystem::path file = dir_ / "blob-locations.json";
  ASSERT_THAT(base::WriteFileAtomic(file, ""), IsOk());
  auto opened = BlobLocations::Open(file);
  ASSERT_THAT(opened, IsOk());
  EXPECT_THAT((*opened)->Find(a_, "r.test"), IsEmpty());
  (*opened)->Record(a_, Repo("r.test/app"));
  ASSERT_THAT((*opened)->Save(), IsOk());
  auto reopened = BlobLocations::Open(file);
  ASSERT_THAT(reopened, IsOk());
  EXPECT_THAT((*reopened)->Find(a_, "r.test"), ElementsAre(Repo("r.test/app")));
}

}  // namespace
}  // namespace trainpkg::registry
