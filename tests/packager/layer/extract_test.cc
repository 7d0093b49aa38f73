// LayerEntry::Extract (Dockerfile ADD of a local archive) and IsTarArchive:
// archives written here with libarchive (every compression ADD accepts),
// unpacked into a layer, read back with libarchive.
#include <archive.h>
#include <archive_entry.h>
#include <stdlib.h>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/layer/layer_writer.h"
#include "packager/layer/tar_archive.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager {
namespace {

namespace fs = std::filesystem;
using ::testing::AllOf;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using testing::ReadEntry;
using testing::ReadTar;
using testing::StringSink;
using testing::TempDir;

constexpr int64_t kEpoch = 1'700'000'000;

struct Member {
  std::string name;
  char type = 'f';  // 'f' file, 'd' dir, 'l' symlink, 'h' hardlink, 'c' char device
  std::string content_or_link;
  uint32_t mode = 0644;
  int64_t uid = 0, gid = 0;
  int64_t mtime = 1'600'000'000;
};

enum class Filter { kNone, kGzip, kBzip2, kXz, kZstd };

// A tar archive of `members`, in that order, compressed with `filter`.
std::string MakeArchive(const std::vector<Member>& members, Filter filter) {
  struct archive* a = archive_write_new();
  archive_write_set_format_pax_restricted(a);
  switch (filter) {
    case Filter::kNone: archive_write_add_filter_none(a); break;
    case Filter::kGzip: archive_write_add_filter_gzip(a); break;
    case Filter::kBzip2: archive_write_add_filter_bzip2(a); break;
    case Filter::kXz: archive_write_add_filter_xz(a); break;
    case Filter::kZstd: archive_write_add_filter_zstd(a); break;
  }
  std::vector<char> buffer(1 << 20);
  size_t used = 0;
  EXPECT_EQ(archive_write_open_memory(a, buffer.data(), buffer.size(), &used), ARCHIVE_OK)
      << archive_error_string(a);
  for (const Member& m : members) {
    struct archive_entry* e = archive_entry_new();
    archive_entry_set_pathname(e, m.name.c_str());
    archive_entry_set_perm(e, m.mode);
    archive_entry_set_uid(e, m.uid);
    archive_entry_set_gid(e, m.gid);
    archive_entry_set_mtime(e, m.mtime, 0);
    switch (m.type) {
      case 'f':
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_size(e, static_cast<la_int64_t>(m.content_or_link.size()));
        break;
      case 'd': archive_entry_set_filetype(e, AE_IFDIR); break;
      case 'l':
        archive_entry_set_filetype(e, AE_IFLNK);
        archive_entry_set_symlink(e, m.content_or_link.c_str());
        break;
      case 'h':
        archive_entry_set_filetype(e, AE_IFREG);
        archive_entry_set_hardlink(e, m.content_or_link.c_str());
        archive_entry_set_size(e, 0);
        break;
      case 'c':
        archive_entry_set_filetype(e, AE_IFCHR);
        archive_entry_set_rdev(e, 0x0103);
        break;
    }
    EXPECT_EQ(archive_write_header(a, e), ARCHIVE_OK) << archive_error_string(a);
    if (m.type == 'f' && !m.content_or_link.empty()) {
      archive_write_data(a, m.content_or_link.data(), m.content_or_link.size());
    }
    archive_entry_free(e);
  }
  EXPECT_EQ(archive_write_close(a), ARCHIVE_OK);
  archive_write_free(a);
  return std::string(buffer.data(), used);
}

// IsTarArchive's answer, or a test failure when it returned an error.
bool IsArchive(const fs::path& path) {
  absl::StatusOr<bool> is = IsTarArchive(path);
  EXPECT_THAT(is, IsOk());
  return is.ok() && *is;
}

class ExtractTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = dir_.path() / "ctx";
    fs::create_directories(ctx_);
    // Staging goes to $TMPDIR: point it at a directory the test can inspect.
    staging_parent_ = dir_.path() / "tmp";
    fs::create_directories(staging_parent_);
    const char* old = std::getenv("TMPDIR");
    old_tmpdir_ = old != nullptr ? old : "";
    had_tmpdir_ = old != nullptr;
    ::setenv("TMPDIR", staging_parent_.c_str(), 1);
  }
  void TearDown() override {
    if (had_tmpdir_) {
      ::setenv("TMPDIR", old_tmpdir_.c_str(), 1);
    } else {
      ::unsetenv("TMPDIR");
    }
  }

  void Put(const std::string& name, const std::string& bytes) {
    ASSERT_THAT(base::WriteFileAtomic(ctx_ / name, bytes), IsOk());
  }

  absl::StatusOr<std::vector<ReadEntry>> Extract(const std::string& archive,
                                                 const std::string& dest,
                                                 EntryOverrides overrides = {}) {
    LayerOptions options;
    options.source_date_epoch = kEpoch;
    StringSink sink;
    absl::StatusOr<LayerResult> result =
        WriteLayer(LayerSource{ctx_, {LayerEntry::Extract(archive, dest, overrides)}}, options,
                   &sink);
    if (!result.ok()) return result.status();
    return ReadTar(sink.bytes);
  }

  TempDir dir_;
  fs::path ctx_;
  fs::path staging_parent_;
  std::string old_tmpdir_;
  bool had_tmpdir_ = false;
};

std::vector<Member> SampleMembers() {
  return {
      {"./", 'd', "", 0750, 0, 0},
      {"./bin/", 'd', "", 0755, 0, 0},
      {"./bin/tool", 'f', "#!/bin/sh\necho tool\n", 04755, 0, 0},
      {"./bin/tool-again", 'h', "./bin/tool", 04755, 0, 0},
      {"./lib/libx.so.1", 'f', "ELF pretend", 0644, 1000, 1001, 1'800'000'000},
      {"./lib/libx.so", 'l', "libx.so.1", 0777, 1000, 1001},
      {"/share/doc", 'f', "absolute names land under the destination", 0600, 0, 0},
  };
}

TEST_F(ExtractTest, EveryCompressionUnpacksWithModesOwnersMtimesAndLinks) {
  for (Filter filter : {Filter::kNone, Filter::kGzip, Filter::kBzip2, Filter::kXz, Filter::kZstd}) {
    SCOPED_TRACE(static_cast<int>(filter));
    Put("pkg.archive", MakeArchive(SampleMembers(), filter));
    ASSERT_TRUE(IsArchive(ctx_ / "pkg.archive"));
    auto entries = Extract("pkg.archive", "/opt/pkg");
    ASSERT_THAT(entries, IsOk());
    std::vector<std::string> names;
    for (const ReadEntry& e : *entries) names.push_back(e.name);
    EXPECT_THAT(names, ElementsAre("opt/", "opt/pkg/", "opt/pkg/bin/", "opt/pkg/bin/tool",
                                   "opt/pkg/bin/tool-again", "opt/pkg/lib/", "opt/pkg/lib/libx.so",
                                   "opt/pkg/lib/libx.so.1", "opt/pkg/share/", "opt/pkg/share/doc"));
    std::map<std::string, ReadEntry> at;  // .at() of a missing name throws: a test failure
    for (const ReadEntry& e : *entries) at[e.name] = e;
    EXPECT_EQ(at.at("opt/pkg/").mode, 0750u) << "the archive's ./ sets the destination's mode";
    const ReadEntry& tool = at.at("opt/pkg/bin/tool");
    EXPECT_EQ(tool.type, 'f');
    EXPECT_EQ(tool.mode, 04755u) << "setuid kept, as tar -x as root would";
    EXPECT_EQ(tool.content, "#!/bin/sh\necho tool\n");
    EXPECT_EQ(tool.mtime, 1'600'000'000) << "older mtimes are kept";
    EXPECT_EQ(at.at("opt/pkg/bin/tool-again").type, 'h');
    EXPECT_EQ(at.at("opt/pkg/bin/tool-again").link, "opt/pkg/bin/tool");
    const ReadEntry& lib = at.at("opt/pkg/lib/libx.so.1");
    EXPECT_EQ(lib.uid, 1000);
    EXPECT_EQ(lib.gid, 1001);
    EXPECT_EQ(lib.mtime, kEpoch) << "mtimes after SOURCE_DATE_EPOCH are clamped";
    EXPECT_EQ(lib.uname, "") << "names never leak into the layer";
    EXPECT_EQ(at.at("opt/pkg/lib/libx.so").type, 'l');
    EXPECT_EQ(at.at("opt/pkg/lib/libx.so").link, "libx.so.1");
    EXPECT_EQ(at.at("opt/pkg/share/doc").mode, 0600u);
    EXPECT_EQ(at.at("opt/").mode, 0755u);
    EXPECT_EQ(at.at("opt/").uid, 0);
  }
  EXPECT_TRUE(fs::is_empty(staging_parent_)) << "the staged contents are removed";
}

TEST_F(ExtractTest, SameArchiveGivesTheSameLayerWhateverItsCompression) {
  Put("a.tar", MakeArchive(SampleMembers(), Filter::kNone));
  Put("a.tar.zst", MakeArchive(SampleMembers(), Filter::kZstd));
  LayerOptions options;
  options.source_date_epoch = kEpoch;
  StringSink plain, zstd;
  auto r1 = WriteLayer(LayerSource{ctx_, {LayerEntry::Extract("a.tar", "/x")}}, options, &plain);
  auto r2 = WriteLayer(LayerSource{ctx_, {LayerEntry::Extract("a.tar.zst", "/x")}}, options, &zstd);
  ASSERT_TRUE(r1.ok() && r2.ok());
  EXPECT_EQ(r1->diff_id, r2->diff_id);
  EXPECT_EQ(plain.bytes, zstd.bytes);
}

TEST_F(ExtractTest, ChownAndChmodWin) {
  Put("pkg.tgz", MakeArchive(SampleMembers(), Filter::kGzip));
  auto entries = Extract("pkg.tgz", "/", {.owner = Owner{7, 8}, .mode = 0700});
  ASSERT_THAT(entries, IsOk());
  for (const ReadEntry& e : *entries) {
    if (e.name == "lib/" || e.name == "share/") {  // parents no member names: root, 0755, as Docker
      EXPECT_EQ(e.uid, 0) << e.name;
      EXPECT_EQ(e.mode, 0755u) << e.name;
      continue;
    }
    EXPECT_EQ(e.uid, 7) << e.name;
    EXPECT_EQ(e.gid, 8) << e.name;
    if (e.type == 'f' || e.type == 'd') {
      EXPECT_EQ(e.mode, 0700u) << e.name;
    }
  }
  bool at_root = false;
  for (const ReadEntry& e : *entries) at_root |= e.name == "bin/tool";
  EXPECT_TRUE(at_root) << "extracted at the image root";
}

TEST_F(ExtractTest, UnsafeOrUnsupportedMembersAreRefusedByName) {
  struct Case {
    std::vector<Member> members;
    std::string expected;
  };
  const std::vector<Case> cases = {
      {{{"../../etc/passwd", 'f', "x"}}, "\"../../etc/passwd\" escapes its destination /opt"},
      {{{"dev/tty0", 'c', ""}}, "member \"dev/tty0\" of bad.tar is a character device"},
      {{{"d/.wh.gone", 'f', ""}}, "member \"d/.wh.gone\" of bad.tar has a whiteout name"},
      {{{"etc", 'l', "/etc"}, {"etc/cron.d/job", 'f', "x"}},
       "member \"etc/cron.d/job\" of bad.tar: \"/opt/etc\" is not a directory"},
      {{{"alias", 'h', "missing"}}, "hardlink to \"missing\", which is not a file earlier"},
  };
  for (const Case& c : cases) {
    Put("bad.tar", MakeArchive(c.members, Filter::kNone));
    auto entries = Extract("bad.tar", "/opt");
    ASSERT_FALSE(entries.ok()) << c.expected;
    EXPECT_EQ(entries.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(entries.status().message()), HasSubstr(c.expected));
  }
  EXPECT_TRUE(fs::is_empty(staging_parent_)) << "nothing staged is left after a failure";
}

TEST_F(ExtractTest, StagesWhereTheOptionsSay) {
  Put("pkg.tar", MakeArchive(SampleMembers(), Filter::kNone));
  LayerOptions options;
  options.staging_dir = dir_.path() / "stage";
  StringSink sink;
  auto ok = WriteLayer(LayerSource{ctx_, {LayerEntry::Extract("pkg.tar", "/x")}}, options, &sink);
  ASSERT_THAT(ok, IsOk());
  EXPECT_TRUE(fs::is_empty(dir_.path() / "stage")) << "made, used, emptied";
  // A staging path that cannot be a directory: the error names it.
  Put("not-a-dir", "x");
  options.staging_dir = ctx_ / "not-a-dir";
  auto failed = WriteLayer(LayerSource{ctx_, {LayerEntry::Extract("pkg.tar", "/x")}}, options, &sink);
  ASSERT_FALSE(failed.ok());
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("not-a-dir"));
  EXPECT_TRUE(fs::is_empty(staging_parent_)) << "$TMPDIR untouched when the options name a place";
}

// Issue 16 finding 10: ADD of a local archive has the caps of layer
// unpacking; a small gzip bomb ends with a clear error and nothing staged.
TEST_F(ExtractTest, CapsMembersAndUncompressedBytes) {
  Put("bomb.tar.gz", MakeArchive({{"zeros", 'f', std::string(4 << 20, '\0')}}, Filter::kGzip));
  std::vector<Member> many;
  for (int i = 0; i < 30; ++i) many.push_back({"f" + std::to_string(i), 'f', "x"});
  Put("many.tar.xz", MakeArchive(many, Filter::kXz));
  LayerOptions options;
  options.source_date_epoch = kEpoch;
  options.extract_limits.max_bytes = 1 << 20;
  options.extract_limits.max_entries = 10;
  StringSink sink;
  auto bomb = WriteLayer(LayerSource{ctx_, {LayerEntry::Extract("bomb.tar.gz", "/x")}}, options,
                         &sink);
  EXPECT_EQ(bomb.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(bomb.status().message()),
              AllOf(HasSubstr("bomb.tar.gz"), HasSubstr("more than 1048576 bytes")));
  auto entries = WriteLayer(LayerSource{ctx_, {LayerEntry::Extract("many.tar.xz", "/x")}},
                            options, &sink);
  EXPECT_EQ(entries.status().code(), absl::StatusCode::kResourceExhausted);
  EXPECT_THAT(std::string(entries.status().message()),
              AllOf(HasSubstr("many.tar.xz"), HasSubstr("more than 10 entries")));
  EXPECT_TRUE(fs::is_empty(staging_parent_)) << "nothing staged is left after a failure";
  options.extract_limits = {};
  EXPECT_TRUE(WriteLayer(LayerSource{ctx_, {LayerEntry::Extract("bomb.tar.gz", "/x")}}, options,
                         &sink)
                  .ok());
}

TEST_F(ExtractTest, IsTarArchiveDecidesByContentLikeDocker) {
  Put("real.tar.gz", MakeArchive(SampleMembers(), Filter::kGzip));
  Put("renamed.txt", MakeArchive(SampleMembers(), Filter::kXz));
  Put("empty.tar", MakeArchive({}, Filter::kNone));
  Put("notes.txt", "just text, long enough to not be mistaken for anything\n");
  // gzip of something that is not a tar: ADD copies it as a file.
  Put("notes.gz", std::string("\x1f\x8b\x08\x00\x00\x00\x00\x00\x00\xff", 10) +
                      std::string("\x03\x00", 2) + std::string(8, '\0'));
  EXPECT_TRUE(IsArchive(ctx_ / "real.tar.gz"));
  EXPECT_TRUE(IsArchive(ctx_ / "renamed.txt")) << "not by name";
  EXPECT_FALSE(IsArchive(ctx_ / "empty.tar"));
  EXPECT_FALSE(IsArchive(ctx_ / "notes.txt"));
  EXPECT_FALSE(IsArchive(ctx_ / "notes.gz"));
  EXPECT_EQ(IsTarArchive(ctx_ / "absent.tar").status().code(), absl::StatusCode::kNotFound);
}

}  // namespace
}  // namespace trainpkg::packager
