// Layers read by independent tools in subprocesses: GNU gzip and tar,
// sha256sum, and Python's gzip + tarfile (standard library only).
#include <filesystem>
#include <fstream>
#include <string>

#include "fmt/format.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/layer/layer_writer.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using testing::RunShell;
using testing::TempDir;
using testing::WriteFile;

constexpr int64_t kEpoch = 1'700'000'000;  // 2023-11-14 22:13:20 UTC
const std::string kLongName(110, 'n');

class LayerInteropTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ctx_ = dir_.path() / "ctx";
    WriteFile(ctx_ / "app/bin/run", "#!/bin/sh\necho hi\n", 0700, kEpoch + 5);
    WriteFile(ctx_ / "app/data.txt", "data", 0600, kEpoch + 5);
    fs::create_hard_link(ctx_ / "app/data.txt", ctx_ / "app/hard");
    fs::create_symlink("data.txt", ctx_ / "app/link");
    WriteFile(ctx_ / "app" / kLongName, "long", 0644, kEpoch + 5);
    std::string big;
    for (int i = 0; big.size() < (3u << 20); ++i) big += fmt::format("line {}\n", i);
    WriteFile(ctx_ / "app/big.txt", big, 0644, kEpoch + 5);
  }

  // Writes the layer to dir/<name> and returns its path.
  fs::path WriteToFile(const LayerSource& source, const LayerOptions& options,
                       const std::string& name, LayerResult* result) {
    testing::StringSink sink;
    absl::StatusOr<LayerResult> r = WriteLayer(source, options, &sink);
    EXPECT_THAT(r, IsOk());
    *result = *r;
    const fs::path path = dir_.path() / name;
    std::ofstream(path, std::ios::binary)
        .write(sink.bytes.data(), static_cast<std::streamsize>(sink.bytes.size()));
    return path;
  }

  std::string Shell(const std::string& command) {
    int rc = 0;
    std::string out = RunShell(command, &rc);
    EXPECT_EQ(rc, 0) << command;
    return out;
  }

  LayerSource Source() {
    return LayerSource{ctx_,
                       {LayerEntry::Copy("app", "/app"),
                        LayerEntry::Copy("app/bin/run", "/usr/bin/run",
                                         {.owner = Owner{1000, 1001}, .mode = 0750}),
                        LayerEntry::Whiteout("/etc/motd")}};
  }

  TempDir dir_;
  fs::path ctx_;
};

TEST_F(LayerInteropTest, GnuTarListsWhatWeMeant) {
  LayerResult result;
  const fs::path layer = WriteToFile(Source(), {.source_date_epoch = kEpoch}, "l.tgz", &result);
  const std::string listing = Shell(fmt::format(
      "gzip -dc {} | TZ=UTC tar -tv --numeric-owner --full-time -f - | tr -s ' '", layer.string()));
  const std::string t = "2023-11-14 22:13:20";
  EXPECT_EQ(listing, fmt::format("drwxr-xr-x 0/0 0 {t} app/\n"
                                 "-rw-r--r-- 0/0 3{big} {t} app/big.txt\n"
                                 "drwxr-xr-x 0/0 0 {t} app/bin/\n"
                                 "-rwxr-xr-x 0/0 18 {t} app/bin/run\n"
                                 "-rw-r--r-- 0/0 4 {t} app/data.txt\n"
                                 "hrw-r--r-- 0/0 0 {t} app/hard link to app/data.txt\n"
                                 "lrwxrwxrwx 0/0 0 {t} app/link -> data.txt\n"
                                 "-rw-r--r-- 0/0 4 {t} app/{long}\n"
                                 "drwxr-xr-x 0/0 0 {t} etc/\n"
                                 "-rw-r--r-- 0/0 0 {t} etc/.wh.motd\n"
                                 "drwxr-xr-x 0/0 0 {t} usr/\n"
                                 "drwxr-xr-x 0/0 0 {t} usr/bin/\n"
                                 "-rwxr-x--- 1000/1001 18 {t} usr/bin/run\n",
                                 fmt::arg("t", t), fmt::arg("long", kLongName),
                                 fmt::arg("big", fs::file_size(ctx_ / "app/big.txt") - 3000000)));
}

TEST_F(LayerInteropTest, DigestsMatchSha256sumAndGzipAcceptsEveryBlocking) {
  LayerResult plain;
  LayerOptions uncompressed;
  uncompressed.source_date_epoch = kEpoch;
  uncompressed.compression = LayerCompression::kNone;
  const fs::path tar = WriteToFile(Source(), uncompressed, "l.tar", &plain);
  for (size_t block : {size_t{4096}, size_t{100000}, size_t{1} << 20}) {
    for (int threads : {1, 2, 3}) {
      LayerResult r;
      const fs::path gz = WriteToFile(
          Source(), {.source_date_epoch = kEpoch, .gzip_block_size = block, .threads = threads},
          fmt::format("l-{}-{}.tgz", block, threads), &r);
      Shell("gzip -t " + gz.string());
      Shell(fmt::format("gzip -dc {} | cmp - {}", gz.string(), tar.string()));
      EXPECT_EQ(Shell(fmt::format("sha256sum < {} | cut -d' ' -f1", gz.string())),
                r.digest.hex() + "\n");
      EXPECT_EQ(Shell(fmt::format("gzip -dc {} | sha256sum | cut -d' ' -f1", gz.string())),
                r.diff_id.hex() + "\n");
      EXPECT_EQ(Shell(fmt::format("stat -c %s {}", gz.string())), fmt::format("{}\n", r.size));
      EXPECT_EQ(r.diff_id.ToString(), plain.diff_id.ToString());
      EXPECT_EQ(r.uncompressed_size, static_cast<int64_t>(fs::file_size(tar)));
    }
  }
}

TEST_F(LayerInteropTest, PythonGzipAndTarfileReadIt) {
  int rc = 0;
  RunShell("python3 -c 'import gzip, tarfile'", &rc);
  if (rc != 0) GTEST_SKIP() << "python3 with gzip and tarfile not available";
  LayerResult r;
  const fs::path layer =
      WriteToFile(Source(), {.source_date_epoch = kEpoch, .gzip_block_size = 65536}, "l.tgz", &r);
  const std::string script = fmt::format(
      "import gzip, hashlib, tarfile\n"
      "raw = open('{}', 'rb').read()\n"
      "tar = gzip.decompress(raw)\n"
      "print('sha256:' + hashlib.sha256(tar).hexdigest())\n"
      "with tarfile.open('{}', 'r:gz') as t:\n"
      "    for m in t.getmembers():\n"
      "        print(m.name, m.type.decode(), oct(m.mode), m.uid, m.gid, repr(m.uname),"
      " repr(m.gname), m.mtime, m.linkname, sorted(m.pax_headers))\n",
      layer.string(), layer.string());
  const fs::path py = dir_.path() / "read.py";
  std::ofstream(py) << script;
  const std::string out = Shell("python3 " + py.string());
  EXPECT_THAT(out, HasSubstr(r.diff_id.ToString() + "\n"));
  EXPECT_THAT(out, HasSubstr("app 5 0o755 0 0 '' '' 1700000000  []\n"));
  EXPECT_THAT(out, HasSubstr("app/hard 1 0o644 0 0 '' '' 1700000000 app/data.txt []\n"));
  EXPECT_THAT(out, HasSubstr("app/link 2 0o777 0 0 '' '' 1700000000 data.txt []\n"));
  EXPECT_THAT(out, HasSubstr("usr/bin/run 0 0o750 1000 1001 '' '' 1700000000  []\n"));
  // The one long name needs a PAX header: the path only, no times.
  EXPECT_THAT(out, HasSubstr("app/" + kLongName +
                             " 0 0o644 0 0 '' '' 1700000000  "
                             "['path']\n"));
}

}  // namespace
}  // namespace trainpkg::packager
