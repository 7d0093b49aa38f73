#include "packager/layer/layer_writer.h"

#include <filesystem>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "registry/oci/layout.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager {
namespace {

namespace fs = std::filesystem;
using testing::Gunzip;
using ::testing::HasSubstr;
using testing::ReadEntry;
using testing::ReadTar;
using testing::Sha256;
using testing::StringSink;
using testing::TempDir;
using testing::WriteFile;

constexpr int64_t kEpoch = 1'700'000'000;
constexpr int64_t kOld = 1'600'000'000;  // file mtimes before the epoch
const std::string kLongName(120, 'n');

class LayerWriterTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = dir_.path() / "ctx";
    WriteFile(ctx_ / "app/bin/run", "#!/bin/sh\necho hi\n", 0700, kOld);
    WriteFile(ctx_ / "app/data.txt", "data", 0600, kOld);
    fs::create_hard_link(ctx_ / "app/data.txt", ctx_ / "app/hard");
    fs::create_symlink("data.txt", ctx_ / "app/link");
    WriteFile(ctx_ / "app/deep" / kLongName / "f", "long", 0644, kOld);
    fs::create_symlink("deep/" + kLongName + "/f", ctx_ / "app/longlink");
    WriteFile(dir_.path() / "outside/secret", "secret", 0644, kOld);
    fs::create_symlink(dir_.path() / "outside", ctx_ / "escape");
    fs::create_symlink("../outside", ctx_ / "escape_rel");
    TouchAll(kOld);
  }

  // Every path under ctx/app (links themselves, not their targets).
  void TouchAll(int64_t mtime) {
    for (const auto& p : fs::recursive_directory_iterator(ctx_ / "app")) {
      testing::SetMtime(p.path(), mtime);
    }
    testing::SetMtime(ctx_ / "app", mtime);
  }

  absl::StatusOr<LayerResult> Write(const LayerSource& source, LayerOptions options,
                                    std::string* out) {
    StringSink sink;
    absl::StatusOr<LayerResult> result = WriteLayer(source, options, &sink);
    *out = std::move(sink.bytes);
    return result;
  }

  std::vector<ReadEntry> Entries(const LayerSource& source, LayerOptions options) {
    std::string bytes;
    absl::StatusOr<LayerResult> result = Write(source, options, &bytes);
    EXPECT_THAT(result, IsOk());
    return ReadTar(bytes);
  }

  LayerSource AppTree() { return LayerSource{ctx_, {LayerEntry::Copy("app", "/app")}}; }

  TempDir dir_;
  fs::path ctx_;
};

std::vector<std::string> Names(const std::vector<ReadEntry>& entries) {
  std::vector<std::string> names;
  for (const ReadEntry& e : entries) names.push_back(e.name);
  return names;
}

TEST_F(LayerWriterTest, EntriesAreSortedNormalisedAndKeepLinks) {
  std::vector<ReadEntry> entries = Entries(AppTree(), {.source_date_epoch = kEpoch});
  EXPECT_EQ(Names(entries), (std::vector<std::string>{
                                "app/", "app/bin/", "app/bin/run", "app/data.txt", "app/deep/",
                                "app/deep/" + kLongName + "/", "app/deep/" + kLongName + "/f",
                                "app/hard", "app/link", "app/longlink"}));
  for (const ReadEntry& e : entries) {
    EXPECT_EQ(e.uid, 0) << e.name;
    EXPECT_EQ(e.gid, 0) << e.name;
    EXPECT_EQ(e.uname, "") << e.name;
    EXPECT_EQ(e.gname, "") << e.name;
    EXPECT_EQ(e.mtime, kOld) << e.name;  // clamp keeps mtimes older than the epoch
    EXPECT_FALSE(e.has_atime) << e.name;
    EXPECT_FALSE(e.has_ctime) << e.name;
    const uint32_t want = e.type == 'd' ? 0755 : e.type == 'l' ? 0777 : 0644;
    if (e.name != "app/bin/run") {
      EXPECT_EQ(e.mode, want) << e.name;
    }
  }
  EXPECT_EQ(entries[2].mode, 0755u);  // executable bit kept, group/other normalised
  EXPECT_EQ(entries[2].content, "#!/bin/sh\necho hi\n");
  EXPECT_EQ(entries[3].type, 'f');
  EXPECT_EQ(entries[3].content, "data");
  EXPECT_EQ(entries[7].type, 'h');
  EXPECT_EQ(entries[7].link, "app/data.txt");
  EXPECT_EQ(entries[8].type, 'l');
  EXPECT_EQ(entries[8].link, "data.txt");
  EXPECT_EQ(entries[9].link, "deep/" + kLongName + "/f");
}

TEST_F(LayerWriterTest, MtimePolicies) {
  for (const ReadEntry& e : Entries(AppTree(), {.source_date_epoch = kOld - 10})) {
    EXPECT_EQ(e.mtime, kOld - 10) << e.name;  // clamped down
  }
  for (const ReadEntry& e :
       Entries(AppTree(), {.source_date_epoch = kEpoch, .mtime_policy = MtimePolicy::kSet})) {
    EXPECT_EQ(e.mtime, kEpoch) << e.name;
  }
  for (const ReadEntry& e : Entries(AppTree(), {.source_date_epoch = std::nullopt, .mtime_policy = MtimePolicy::kSet})) {
    EXPECT_EQ(e.mtime, 0) << e.name;  // kSet without an epoch: 1970
  }
}

// BuildKit's rule (issue #17 item 9): without SOURCE_DATE_EPOCH a copied file
// keeps its mtime T, as Docker's COPY keeps it (so .pyc files stay valid); with
// it, min(T, E). Entries no file stands behind get E, else 0.
TEST_F(LayerWriterTest, CopyKeepsSourceMtimesUnlessAnEpochClampsThem) {
  constexpr int64_t kNew = kEpoch + 86'400;  // a checkout after the epoch
  testing::SetMtime(ctx_ / "app/data.txt", kNew);
  LayerSource source{ctx_,
                     {LayerEntry::Copy("app/data.txt", "/srv/data"),
                      LayerEntry::Copy("app/bin/run", "/srv/run"),
                      LayerEntry::Content("/srv/conf", "x\n")}};
  std::vector<ReadEntry> kept = Entries(source, {});
  ASSERT_EQ(Names(kept), (std::vector<std::string>{"srv/", "srv/conf", "srv/data", "srv/run"}));
  EXPECT_EQ(kept[2].mtime, kNew) << "no epoch: the file's own mtime";
  EXPECT_EQ(kept[3].mtime, kOld);
  EXPECT_EQ(kept[0].mtime, 0) << "an added parent: no file, no epoch";
  EXPECT_EQ(kept[1].mtime, 0) << "a heredoc file: no file, no epoch";

  std::vector<ReadEntry> clamped = Entries(source, {.source_date_epoch = kEpoch});
  ASSERT_EQ(clamped.size(), 4u);
  EXPECT_EQ(clamped[2].mtime, kEpoch) << "min(T, E)";
  EXPECT_EQ(clamped[3].mtime, kOld) << "min(T, E)";
  EXPECT_EQ(clamped[0].mtime, kEpoch);
  EXPECT_EQ(clamped[1].mtime, kEpoch);
}

TEST_F(LayerWriterTest, CopyWithOverridesAndSynthesisedParents) {
  LayerSource source{ctx_,
                     {LayerEntry::Copy("/app/bin/run", "/usr/local/bin/run",
                                       {.owner = Owner{1000, 1001}, .mode = 04750}),
                      LayerEntry::Copy("app/data.txt", "//srv/./x/../data")}};
  std::vector<ReadEntry> entries = Entries(source, {.source_date_epoch = kEpoch});
  ASSERT_EQ(Names(entries), (std::vector<std::string>{"srv/", "srv/data", "usr/", "usr/local/",
                                                      "usr/local/bin/", "usr/local/bin/run"}));
  EXPECT_EQ(entries[0].mode, 0755u);
  EXPECT_EQ(entries[0].mtime, kEpoch);  // synthesised parents carry the epoch
  EXPECT_EQ(entries[1].type, 'f');      // a single copy of a linked inode is a file
  EXPECT_EQ(entries[4].uid, 0);         // parents stay root-owned
  EXPECT_EQ(entries[5].uid, 1000);
  EXPECT_EQ(entries[5].gid, 1001);
  EXPECT_EQ(entries[5].mode, 04750u);
}

TEST_F(LayerWriterTest, ContentEntriesAreFilesWithTheirBytes) {
  LayerSource source{ctx_,
                     {LayerEntry::Content("/app/config.yaml", "lr: 0.1\n"),
                      LayerEntry::Content("/etc/motd", "", {.owner = Owner{7, 8}, .mode = 0600}),
                      LayerEntry::Content("/bin/tool", "#!/bin/sh\n", {.owner = std::nullopt, .mode = 0755})}};
  std::vector<ReadEntry> entries = Entries(source, {.source_date_epoch = kEpoch});
  ASSERT_EQ(Names(entries), (std::vector<std::string>{"app/", "app/config.yaml", "bin/",
                                                      "bin/tool", "etc/", "etc/motd"}));
  EXPECT_EQ(entries[1].type, 'f');
  EXPECT_EQ(entries[1].content, "lr: 0.1\n");
  EXPECT_EQ(entries[1].mode, 0644u);
  EXPECT_EQ(entries[1].uid, 0);
  EXPECT_EQ(entries[1].mtime, kEpoch);
  EXPECT_EQ(entries[3].mode, 0755u);
  EXPECT_EQ(entries[3].content, "#!/bin/sh\n");
  EXPECT_EQ(entries[5].content, "");
  EXPECT_EQ(entries[5].mode, 0600u);
  EXPECT_EQ(entries[5].uid, 7);
  EXPECT_EQ(entries[5].gid, 8);
  // Same content, same bytes; a content entry replaces a copy of the same path.
  std::string a, b;
  ASSERT_THAT(Write(source, {.source_date_epoch = kEpoch}, &a), IsOk());
  ASSERT_THAT(Write(source, {.source_date_epoch = kEpoch}, &b), IsOk());
  EXPECT_EQ(a, b);
  LayerSource replaced{ctx_,
                       {LayerEntry::Copy("app/data.txt", "/x"), LayerEntry::Content("/x", "new")}};
  entries = Entries(replaced, {});
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].content, "new");
  std::string out;
  EXPECT_THAT(std::string(Write(LayerSource{ctx_, {LayerEntry::Content("/", "x")}}, {}, &out)
                              .status()
                              .message()),
              HasSubstr("the image root cannot be a file"));
}

TEST_F(LayerWriterTest, SameInputSameBytesAcrossTouchesAndThreads) {
  // A fresh checkout: every mtime after the epoch, so clamping gives the epoch.
  TouchAll(kEpoch + 86400);
  LayerOptions options{.source_date_epoch = kEpoch, .gzip_block_size = 4096};
  std::string first, second, threads1, touched_bytes, other_epoch;
  absl::StatusOr<LayerResult> a = Write(AppTree(), options, &first);
  ASSERT_THAT(a, IsOk());
  ASSERT_THAT(Write(AppTree(), options, &second), IsOk());
  EXPECT_EQ(first, second);

  LayerOptions one_thread = options;
  one_thread.threads = 1;
  ASSERT_THAT(Write(AppTree(), one_thread, &threads1), IsOk());
  EXPECT_EQ(first, threads1);

  TouchAll(kEpoch + 86400 * 30);  // checked out again a month later
  absl::StatusOr<LayerResult> touched = Write(AppTree(), options, &touched_bytes);
  ASSERT_THAT(touched, IsOk());
  EXPECT_EQ(touched_bytes, first);
  EXPECT_EQ(touched->diff_id.ToString(), a->diff_id.ToString());
  EXPECT_EQ(touched->digest.ToString(), a->digest.ToString());

  options.source_date_epoch = kEpoch + 1;
  absl::StatusOr<LayerResult> b = Write(AppTree(), options, &other_epoch);
  ASSERT_THAT(b, IsOk());
  EXPECT_NE(b->diff_id.ToString(), a->diff_id.ToString());
  EXPECT_NE(b->digest.ToString(), a->digest.ToString());
}

TEST_F(LayerWriterTest, DigestsSizesAndUncompressedLayers) {
  std::string gz, tar;
  absl::StatusOr<LayerResult> r = Write(AppTree(), {.source_date_epoch = kEpoch}, &gz);
  ASSERT_THAT(r, IsOk());
  const std::string uncompressed = Gunzip(gz);
  EXPECT_EQ(r->diff_id.ToString(), Sha256(uncompressed));
  EXPECT_EQ(r->digest.ToString(), Sha256(gz));
  EXPECT_EQ(r->size, static_cast<int64_t>(gz.size()));
  EXPECT_EQ(r->uncompressed_size, static_cast<int64_t>(uncompressed.size()));
  EXPECT_EQ(r->entries, 10);
  EXPECT_EQ(uncompressed.size() % 512, 0u);

  absl::StatusOr<LayerResult> plain =
      Write(AppTree(), {.source_date_epoch = kEpoch, .compression = LayerCompression::kNone}, &tar);
  ASSERT_THAT(plain, IsOk());
  EXPECT_EQ(tar, uncompressed);
  EXPECT_EQ(plain->digest.ToString(), r->diff_id.ToString());
  EXPECT_EQ(plain->diff_id.ToString(), r->diff_id.ToString());
}

TEST_F(LayerWriterTest, WriteLayerBlobStoresTheSameBytesUnderTheirDigest) {
  std::string gz;
  absl::StatusOr<LayerResult> streamed = Write(AppTree(), {.source_date_epoch = kEpoch}, &gz);
  ASSERT_THAT(streamed, IsOk());
  absl::StatusOr<oci::Layout> layout = oci::Layout::Create(dir_.path() / "layout");
  ASSERT_THAT(layout, IsOk());

  absl::StatusOr<LayerResult> stored =
      WriteLayerBlob(AppTree(), {.source_date_epoch = kEpoch}, *layout);
  ASSERT_THAT(stored, IsOk());
  EXPECT_EQ(stored->digest.ToString(), streamed->digest.ToString());
  EXPECT_EQ(stored->digest.ToString(), Sha256(gz));
  EXPECT_EQ(stored->size, static_cast<int64_t>(gz.size()));
  EXPECT_EQ(stored->diff_id.ToString(), streamed->diff_id.ToString());
  EXPECT_EQ(stored->uncompressed_size, streamed->uncompressed_size);
  EXPECT_EQ(stored->entries, streamed->entries);
  EXPECT_EQ(::trainpkg::testing::Slurp(layout->BlobPath(stored->digest)), gz);

  // A layer that fails leaves no blob, temporary or named.
  absl::StatusOr<LayerResult> failed =
      WriteLayerBlob(LayerSource{ctx_, {LayerEntry::Copy("escape/secret", "/s")}}, {}, *layout);
  EXPECT_EQ(failed.status().code(), absl::StatusCode::kInvalidArgument) << failed.status();
  EXPECT_THAT(std::string(failed.status().message()), HasSubstr("writing layer: "));
  EXPECT_EQ(::trainpkg::testing::CountEntries(dir_.path() / "layout/blobs/sha256"), 1);
}

TEST_F(LayerWriterTest, CompressLayerBlobGivesWhatWriteLayerWouldHave) {
  absl::StatusOr<oci::Layout> layout = oci::Layout::Create(dir_.path() / "layout");
  ASSERT_THAT(layout, IsOk());
  // Several members (4 KiB blocks) on 3 threads: the bytes still match.
  WriteFile(ctx_ / "app/big.txt", std::string(50'000, 'x') + "tail", 0644, kOld);
  const LayerOptions plain{.source_date_epoch = kEpoch, .compression = LayerCompression::kNone};
  absl::StatusOr<LayerResult> tar = WriteLayerBlob(AppTree(), plain, *layout);
  ASSERT_THAT(tar, IsOk());
  EXPECT_EQ(tar->digest, tar->diff_id) << "an uncompressed layer is its own diff_id";
  EXPECT_EQ(Sha256(::trainpkg::testing::Slurp(layout->BlobPath(tar->digest))),
            tar->diff_id.ToString());

  for (LayerCompression compression : {LayerCompression::kGzip, LayerCompression::kZstd}) {
    const LayerOptions options{.source_date_epoch = kEpoch,
                               .compression = compression,
                               .gzip_level = 9,
                               .gzip_block_size = 4096,
                               .zstd_level = 7,
                               .threads = 3};
    std::string direct;
    absl::StatusOr<LayerResult> written = Write(AppTree(), options, &direct);
    ASSERT_THAT(written, IsOk());
    absl::StatusOr<LayerResult> later = CompressLayerBlob(*layout, tar->diff_id, options);
    ASSERT_THAT(later, IsOk());
    EXPECT_EQ(later->digest, written->digest);
    EXPECT_EQ(later->size, written->size);
    EXPECT_EQ(later->diff_id, tar->diff_id);
    EXPECT_EQ(later->uncompressed_size, tar->size);
    EXPECT_EQ(::trainpkg::testing::Slurp(layout->BlobPath(later->digest)), direct);
  }

  absl::StatusOr<LayerResult> none = CompressLayerBlob(*layout, tar->diff_id, plain);
  EXPECT_EQ(none.status().code(), absl::StatusCode::kInvalidArgument) << none.status();
  absl::StatusOr<LayerResult> missing =
      CompressLayerBlob(*layout, *oci::Digest::Parse(Sha256("nothing")), {});
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kNotFound) << missing.status();
  EXPECT_THAT(std::string(missing.status().message()), HasSubstr("compressing layer sha256:"));

  // A damaged blob is refused, and leaves no new blob behind.
  ::trainpkg::testing::FlipByte(layout->BlobPath(tar->digest), tar->size / 2);
  const fs::path blobs = dir_.path() / "layout/blobs/sha256";
  const int before = ::trainpkg::testing::CountEntries(blobs);
  absl::StatusOr<LayerResult> damaged = CompressLayerBlob(*layout, tar->diff_id, {});
  EXPECT_EQ(damaged.status().code(), absl::StatusCode::kDataLoss) << damaged.status();
  EXPECT_EQ(::trainpkg::testing::CountEntries(blobs), before);
}

TEST_F(LayerWriterTest, EscapesAreRefusedNamingThePath) {
  auto error = [&](LayerEntry entry) {
    std::string bytes;
    absl::StatusOr<LayerResult> r = Write(LayerSource{ctx_, {entry}}, {}, &bytes);
    EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument) << r.status();
    return std::string(r.status().message());
  };
  EXPECT_THAT(error(LayerEntry::Copy("../outside/secret", "/x")),
              HasSubstr("source \"../outside/secret\" escapes the build context"));
  EXPECT_THAT(error(LayerEntry::Copy("app/../../outside", "/x")), HasSubstr("escapes"));
  EXPECT_THAT(error(LayerEntry::Copy("escape/secret", "/x")),
              HasSubstr("source \"escape/secret\" resolves to"));
  EXPECT_THAT(error(LayerEntry::Copy("escape", "/x")), HasSubstr("outside the build context"));
  EXPECT_THAT(error(LayerEntry::Copy("escape_rel", "/x")), HasSubstr("outside the build context"));
  EXPECT_THAT(error(LayerEntry::Copy("app/data.txt", "/../../etc/passwd")),
              HasSubstr("destination \"/../../etc/passwd\" escapes the image root"));
  std::string bytes;
  EXPECT_EQ(
      Write(LayerSource{ctx_, {LayerEntry::Copy("missing", "/x")}}, {}, &bytes).status().code(),
      absl::StatusCode::kNotFound);
}

TEST_F(LayerWriterTest, SymlinksInsideACopiedTreeStayLinks) {
  // The tree walk never follows links, even ones pointing outside the context.
  std::vector<ReadEntry> entries =
      Entries(LayerSource::DirectoryTree(ctx_), {.source_date_epoch = kEpoch});
  bool saw_escape = false;
  for (const ReadEntry& e : entries) {
    EXPECT_NE(e.content, "secret");
    if (e.name == "escape") {
      saw_escape = true;
      EXPECT_EQ(e.type, 'l');
      EXPECT_EQ(e.link, (dir_.path() / "outside").string());
    }
  }
  EXPECT_TRUE(saw_escape);
}

TEST_F(LayerWriterTest, WhiteoutsComeBeforeTheirSiblings) {
  LayerSource source{ctx_,
                     {LayerEntry::Copy("app/data.txt", "/var/cache/keep"),
                      LayerEntry::Copy("app/data.txt", "/etc/a"), LayerEntry::Whiteout("/etc/motd"),
                      LayerEntry::OpaqueWhiteout("/var/cache")}};
  std::vector<ReadEntry> entries = Entries(source, {.source_date_epoch = kEpoch});
  EXPECT_EQ(Names(entries),
            (std::vector<std::string>{"etc/", "etc/.wh.motd", "etc/a", "var/", "var/cache/",
                                      "var/cache/.wh..wh..opq", "var/cache/keep"}));
  EXPECT_EQ(entries[1].type, 'f');
  EXPECT_EQ(entries[1].content, "");

  WriteFile(ctx_ / "bad/.wh.sneaky", "");
  std::string bytes;
  absl::StatusOr<LayerResult> r =
      Write(LayerSource{ctx_, {LayerEntry::Copy("bad", "/bad")}}, {}, &bytes);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("whiteout name"));
}

TEST_F(LayerWriterTest, LaterEntriesReplaceEarlierOnesAndConflictsFail) {
  WriteFile(ctx_ / "other.txt", "other");
  std::vector<ReadEntry> entries = Entries(
      LayerSource{ctx_,
                  {LayerEntry::Copy("app/data.txt", "/x"), LayerEntry::Copy("other.txt", "/x")}},
      {});
  ASSERT_EQ(entries.size(), 1u);
  EXPECT_EQ(entries[0].content, "other");

  std::string bytes;
  absl::StatusOr<LayerResult> r = Write(
      LayerSource{ctx_,
                  {LayerEntry::Copy("other.txt", "/x"), LayerEntry::Copy("other.txt", "/x/y")}},
      {}, &bytes);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(r.status().message()), HasSubstr("\"/x\" is not a directory"));
}

TEST_F(LayerWriterTest, NonAsciiNamesRoundTrip) {
  WriteFile(ctx_ / "u/caf\xc3\xa9.txt", "x");
  std::vector<ReadEntry> entries = Entries(LayerSource{ctx_, {LayerEntry::Copy("u", "/u")}}, {});
  ASSERT_EQ(entries.size(), 2u);
  EXPECT_EQ(entries[1].name, "u/caf\xc3\xa9.txt");
}

TEST_F(LayerWriterTest, BadOptionsAreInvalidArgument) {
  std::vector<LayerOptions> bad(3);
  bad[0].gzip_level = 13;
  bad[1].gzip_block_size = 0;
  bad[2].threads = 0;
  std::string bytes;
  for (const LayerOptions& options : bad) {
    EXPECT_EQ(Write(AppTree(), options, &bytes).status().code(),
              absl::StatusCode::kInvalidArgument);
  }
}

TEST(SetCompressionLevelTest, SetsTheLevelOfTheChosenCompressionWithinItsRange) {
  LayerOptions gzip;
  ASSERT_THAT(SetCompressionLevel(1, &gzip), IsOk());
  EXPECT_EQ(gzip.gzip_level, 1);
  EXPECT_EQ(gzip.zstd_level, 3);
  EXPECT_THAT(std::string(SetCompressionLevel(13, &gzip).message()), HasSubstr("outside 1..12"));
  EXPECT_EQ(SetCompressionLevel(0, &gzip).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(gzip.gzip_level, 1);

  LayerOptions zstd;
  zstd.compression = LayerCompression::kZstd;
  ASSERT_THAT(SetCompressionLevel(19, &zstd), IsOk());
  EXPECT_EQ(zstd.zstd_level, 19);
  EXPECT_EQ(zstd.gzip_level, 6);
  EXPECT_THAT(std::string(SetCompressionLevel(20, &zstd).message()), HasSubstr("outside 1..19"));

  LayerOptions none;
  none.compression = LayerCompression::kNone;
  EXPECT_EQ(SetCompressionLevel(1, &none).code(), absl::StatusCode::kInvalidArgument);
}

}  // namespace
}  // namespace trainpkg::packager
