// `trainpkg import` in-process (issue #17 item 2): a handmade root filesystem
// as a directory, a plain tar and a gzip tar becomes a one-layer image whose
// config holds the --change instructions; umoci unpacks it (an independent
// reader); the same input and SOURCE_DATE_EPOCH give the same digest; hostile
// archives and directories are refused with the member named and nothing
// left behind.
#include "packager/builder/import_image.h"

#include <sys/stat.h>
#include <unistd.h>

#include <ctime>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/builder/image_export.h"
#include "registry/oci/layout.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/test_util/file.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using testing::ScratchDir;
using testing::Sh;
using Result = testing::ShellResult;
using packager::testing::ReadEntry;
using packager::testing::SetMtime;
using trainpkg::testing::Slurp;

constexpr int64_t kMtime = 1'650'000'000;
constexpr int64_t kEpoch = 1'700'000'000;

std::vector<std::string> Listing(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : fs::recursive_directory_iterator(dir, ec)) {
    names.push_back(entry.path().lexically_relative(dir).string());
  }
  return names;
}

class ImportImageTest : public ::testing::Test {
 protected:
  void SetUp() override {
    // A small root filesystem: an executable, a setuid file, a file owned by
    // 1000:1000, relative and absolute symlinks and a hardlink.
    rootfs_ = dir_.path() / "rootfs";
    packager::testing::WriteFile(rootfs_ / "bin/tool", "#!/bin/sh\necho tool\n", 0755, kMtime);
    packager::testing::WriteFile(rootfs_ / "usr/bin/su", "su", 04755, kMtime);
    packager::testing::WriteFile(rootfs_ / "etc/os-release", "ID=handmade\n", 0644, kMtime);
    packager::testing::WriteFile(rootfs_ / "home/u/notes", "mine\n", 0600, kMtime);
    ASSERT_EQ(::chown((rootfs_ / "home/u/notes").c_str(), 1000, 1000), 0);
    ASSERT_EQ(::chown((rootfs_ / "home/u").c_str(), 1000, 1000), 0);
    fs::create_symlink("tool", rootfs_ / "bin/sh");
    fs::create_symlink("/usr/bin", rootfs_ / "sbin");
    fs::create_hard_link(rootfs_ / "bin/tool", rootfs_ / "bin/tool2");
    fs::create_symlink("../../../../../../etc", rootfs_ / "up");  // data, never followed
    for (const auto& entry : fs::recursive_directory_iterator(rootfs_)) {
      SetMtime(entry.path(), kMtime);
    }
    SetMtime(rootfs_, kMtime);
  }

  // `tar` of the rootfs at `path` (as root: numeric owners kept).
  fs::path Tar(const std::string& name, const std::string& flags) {
    const fs::path path = dir_.path() / name;
    Result r = Sh("tar --numeric-owner -C " + rootfs_.string() + " " + flags + " -f " +
                  path.string() + " .");
    EXPECT_EQ(r.code, 0) << r.out;
    return path;
  }

  absl::StatusOr<BuiltImage> Import(const fs::path& source, const std::string& store,
                                    std::vector<std::string> changes = {},
                                    std::optional<int64_t> epoch = std::nullopt) {
    auto layout = oci::Layout::Create(dir_.path() / store);
    if (!layout.ok()) return layout.status();
    ImportRequest request;
    request.source = source;
    request.changes = std::move(changes);
    request.platform = "linux/amd64";
    request.source_date_epoch = epoch;
    request.staging_dir = staging();
    request.progress = [this](const BuildStep& step) {
      steps_.push_back(step.text + (step.done ? " done" : ""));
    };
    return ImportImage(request, *layout);
  }

  fs::path staging() {
    fs::create_directories(dir_.path() / "staging");
    return dir_.path() / "staging";
  }

  std::map<std::string, ReadEntry> Layer(const std::string& store, const BuiltImage& image) {
    std::map<std::string, ReadEntry> entries;
    auto layout = oci::Layout::Open(dir_.path() / store);
    EXPECT_THAT(layout, IsOk());
    if (!layout.ok() || image.manifest.layers.size() != 1) return entries;
    const std::string blob = Slurp(layout->BlobPath(image.manifest.layers[0].digest));
    for (ReadEntry& entry : packager::testing::ReadTar(blob)) entries[entry.name] = entry;
    return entries;
  }

  // umoci's unpack of `image` (exported from `store` to a layout).
  fs::path Unpack(const std::string& store, const BuiltImage& image, const std::string& name) {
    auto layout = oci::Layout::Open(dir_.path() / store);
    EXPECT_THAT(layout, IsOk());
    auto out = oci::Layout::Create(dir_.path() / ("out-" + name));
    EXPECT_THAT(out, IsOk());
    EXPECT_THAT(ExportImage(image, *layout, *out, "1", false), IsOk());
    const fs::path bundle = dir_.path() / ("bundle-" + name);
    Result r = Sh("umoci unpack --image " + out->root().string() + ":1 " + bundle.string());
    EXPECT_EQ(r.code, 0) << r.out;
    return bundle / "rootfs";
  }

  // Imports `archive` into a fresh store; expects InvalidArgument (or
  // `code`) containing `message`, and no blob or staged file left.
  void ExpectRefused(const fs::path& source, const std::string& message,
                     absl::StatusCode code = absl::StatusCode::kInvalidArgument,
                     std::vector<std::string> changes = {}) {
    const std::string store = "refused-" + std::to_string(refused_++);
    auto image = Import(source, store, std::move(changes));
    ASSERT_FALSE(image.ok()) << source;
    EXPECT_EQ(image.status().code(), code) << image.status();
    EXPECT_THAT(std::string(image.status().message()),
                HasSubstr("importing " + source.string() + ": "));
    EXPECT_THAT(std::string(image.status().message()), HasSubstr(message));
    EXPECT_THAT(Listing(dir_.path() / store / "blobs/sha256"), IsEmpty()) << "a blob was left";
    EXPECT_THAT(Listing(staging()), IsEmpty()) << "staged files were left";
  }

  // A tar written by Python's tarfile from `script` (statements using `t`,
  // an open TarFile, and `add(name, type, **attrs)`).
  fs::path HostileTar(const std::string& name, const std::string& script) {
    const fs::path path = dir_.path() / name;
    const std::string program =
        "import io, tarfile, sys\n"
        "t = tarfile.open(sys.argv[1], 'w')\n"
        "def add(name, type=tarfile.REGTYPE, data=b'x', **attrs):\n"
        "    i = tarfile.TarInfo(name); i.type = type\n"
        "    for k, v in attrs.items(): setattr(i, k, v)\n"
        "    if type == tarfile.REGTYPE:\n"
        "        i.size = len(data); t.addfile(i, io.BytesIO(data))\n"
        "    else:\n"
        "        t.addfile(i)\n" +
        script + "\nt.close()\n";
    packager::testing::WriteFile(dir_.path() / "make_tar.py", program);
    Result r = Sh("python3 " + (dir_.path() / "make_tar.py").string() + " " + path.string());
    EXPECT_EQ(r.code, 0) << r.out;
    return path;
  }

  ScratchDir dir_;
  fs::path rootfs_;
  std::vector<std::string> steps_;
  int refused_ = 0;
};

TEST_F(ImportImageTest, DirectoryBecomesOneLayerWithItsChangesAndUmociUnpacksIt) {
  auto image =
      Import(rootfs_, "store",
             {"ENV PATH=/usr/bin:/bin", "ENV EXTRA=$PATH:/opt", "WORKDIR /srv", "USER 1000:1000",
              "LABEL org.example.base=handmade", "EXPOSE 8080", "ENTRYPOINT [\"/bin/sh\"]",
              "CMD [\"-c\", \"echo hi\"]", "STOPSIGNAL SIGINT", "VOLUME /data"});
  ASSERT_THAT(image, IsOk());
  EXPECT_EQ(image->manifest.layers.size(), 1u);
  EXPECT_EQ(image->base_layer_count, 0u);
  const oci::ImageConfig& config = image->config;
  EXPECT_EQ(config.architecture, "amd64");
  EXPECT_EQ(config.os, "linux");
  EXPECT_EQ(config.created, "1970-01-01T00:00:00Z");
  EXPECT_THAT(config.config.env, ElementsAre("PATH=/usr/bin:/bin", "EXTRA=/usr/bin:/bin:/opt"));
  EXPECT_EQ(config.config.working_dir, "/srv");
  EXPECT_EQ(config.config.user, "1000:1000");
  EXPECT_EQ(config.config.labels.at("org.example.base"), "handmade");
  EXPECT_THAT(config.config.exposed_ports, ElementsAre("8080/tcp"));
  EXPECT_THAT(config.config.entrypoint, ElementsAre("/bin/sh"));
  EXPECT_THAT(config.config.cmd, ElementsAre("-c", "echo hi"));
  EXPECT_EQ(config.config.stop_signal, "SIGINT");
  EXPECT_THAT(config.config.volumes, ElementsAre("/data"));
  ASSERT_EQ(config.history.size(), 11u);
  EXPECT_EQ(config.history[0].created_by, "trainpkg import");
  EXPECT_FALSE(config.history[0].empty_layer);
  EXPECT_TRUE(config.history[1].empty_layer);
  EXPECT_EQ(steps_.front(), "IMPORT " + rootfs_.string());
  EXPECT_EQ(steps_[1], "IMPORT " + rootfs_.string() + " done");
  EXPECT_EQ(steps_.back(), "VOLUME /data");

  auto entries = Layer("store", *image);
  EXPECT_EQ(entries["usr/bin/su"].mode, 04755u) << "setuid bits are kept";
  EXPECT_EQ(entries["home/u/notes"].mode, 0600u);
  EXPECT_EQ(entries["home/u/notes"].uid, 1000);
  EXPECT_EQ(entries["home/u/"].gid, 1000);
  EXPECT_EQ(entries["bin/sh"].link, "tool");
  EXPECT_EQ(entries["sbin"].link, "/usr/bin") << "absolute symlinks are kept as written";
  EXPECT_EQ(entries["bin/tool2"].type, 'h');
  EXPECT_EQ(entries["up"].type, 'l');
  EXPECT_EQ(entries["up"].link, "../../../../../../etc");
  EXPECT_FALSE(entries.contains("up/passwd")) << "a symlink out of the rootfs was followed";
  EXPECT_EQ(entries["etc/os-release"].mtime, kMtime) << "no SOURCE_DATE_EPOCH: mtimes kept";

  const fs::path unpacked = Unpack("store", *image, "dir");
  EXPECT_EQ(Slurp(unpacked / "etc/os-release"), "ID=handmade\n");
  EXPECT_EQ(fs::read_symlink(unpacked / "sbin"), "/usr/bin");
  struct stat st;
  ASSERT_EQ(::stat((unpacked / "usr/bin/su").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 07777, 04755u);
  ASSERT_EQ(::stat((unpacked / "home/u/notes").c_str(), &st), 0);
  EXPECT_EQ(st.st_uid, 1000u);
  EXPECT_EQ(st.st_mtime, kMtime);
}

TEST_F(ImportImageTest, PlainAndGzipTarballsGiveTheDirectorysLayer) {
  auto from_dir = Import(rootfs_, "store");
  ASSERT_THAT(from_dir, IsOk());
  auto plain = Import(Tar("rootfs.tar", "-c"), "store");
  ASSERT_THAT(plain, IsOk());
  auto gzip = Import(Tar("rootfs.tar.gz", "-cz"), "store");
  ASSERT_THAT(gzip, IsOk());
  EXPECT_EQ(plain->config.rootfs.diff_ids, from_dir->config.rootfs.diff_ids);
  EXPECT_EQ(gzip->manifest_descriptor.digest, from_dir->manifest_descriptor.digest)
      << "the same files, whichever form they came in";
  EXPECT_THAT(Listing(staging()), IsEmpty()) << "staged members are removed";
  const fs::path unpacked = Unpack("store", *gzip, "gzip");
  EXPECT_EQ(Slurp(unpacked / "bin/tool"), "#!/bin/sh\necho tool\n");
  EXPECT_EQ(fs::read_symlink(unpacked / "bin/sh"), "tool");
}

TEST_F(ImportImageTest, SameInputAndEpochGiveTheSameDigest) {
  // Two checkouts of the same files, both after the epoch (clamped to it).
  auto touch = [&](int64_t mtime) {
    for (const auto& entry : fs::recursive_directory_iterator(rootfs_)) {
      SetMtime(entry.path(), mtime);
    }
  };
  touch(kEpoch + 3600);
  const fs::path tar = Tar("rootfs.tar", "-c");
  auto first = Import(rootfs_, "one", {"CMD [\"/bin/sh\"]"}, kEpoch);
  ASSERT_THAT(first, IsOk());
  touch(::time(nullptr));  // and another store
  auto second = Import(rootfs_, "two", {"CMD [\"/bin/sh\"]"}, kEpoch);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(first->manifest_descriptor.digest, second->manifest_descriptor.digest);
  EXPECT_EQ(first->config.created, "2023-11-14T22:13:20Z");
  auto entries = Layer("two", *second);
  EXPECT_EQ(entries["etc/os-release"].mtime, kEpoch);

  auto from_tar = Import(tar, "three", {"CMD [\"/bin/sh\"]"}, kEpoch);
  ASSERT_THAT(from_tar, IsOk());
  auto again = Import(tar, "four", {"CMD [\"/bin/sh\"]"}, kEpoch);
  ASSERT_THAT(again, IsOk());
  EXPECT_EQ(from_tar->manifest_descriptor.digest, again->manifest_descriptor.digest);
}

// The imported image as a base: a Dockerfile FROM it whose RUN runs under
// runc over its files (busybox-static as the rootfs's shell), as a Debian
// base made from debootstrap's output will be used.
TEST_F(ImportImageTest, ImportedImageIsABaseARunCanUse) {
  if (::geteuid() != 0) GTEST_SKIP() << "RUN needs root (runc, overlayfs)";
  ASSERT_TRUE(fs::exists("/bin/busybox")) << "busybox-static is missing (scripts/install-deps.sh)";
  const fs::path busybox_root = dir_.path() / "busybox-root";
  fs::create_directories(busybox_root / "bin");
  fs::copy_file("/bin/busybox", busybox_root / "bin/busybox");
  fs::create_symlink("busybox", busybox_root / "bin/sh");
  fs::create_symlink("busybox", busybox_root / "bin/cat");
  packager::testing::WriteFile(busybox_root / "etc/os-release", "ID=imported\n");
  const fs::path tar = dir_.path() / "busybox.tar.gz";
  Result made = Sh("tar -C " + busybox_root.string() + " -czf " + tar.string() + " .");
  ASSERT_EQ(made.code, 0) << made.out;
  auto image = Import(tar, "imported", {"ENV PATH=/bin"});
  ASSERT_THAT(image, IsOk());
  auto store = oci::Layout::Open(dir_.path() / "imported");
  ASSERT_THAT(store, IsOk());
  auto base = oci::Layout::Create(dir_.path() / "base");
  ASSERT_THAT(base, IsOk());
  ASSERT_THAT(ExportImage(*image, *store, *base, "1", false), IsOk());

  const fs::path ctx = dir_.path() / "ctx";
  testing::WriteFile(ctx / "Dockerfile", "FROM oci:" + (dir_.path() / "base").string() +
                                             ":1\nRUN cat /etc/os-release > /copied\n");
  BuildRequest request;
  request.context_dir = ctx;
  testing::BuildRun run = testing::Build(dir_.path() / "home", request);
  ASSERT_THAT(run.image, IsOk());
  ASSERT_EQ(run.image->manifest.layers.size(), 2u);
  auto home_store = oci::Layout::Open(dir_.path() / "home/images");
  ASSERT_THAT(home_store, IsOk());
  std::map<std::string, ReadEntry> entries;
  for (ReadEntry& entry : packager::testing::ReadTar(
           Slurp(home_store->BlobPath(run.image->manifest.layers[1].digest)))) {
    entries[entry.name] = entry;
  }
  EXPECT_EQ(entries["copied"].content, "ID=imported\n");
}

TEST_F(ImportImageTest, HostileArchivesAreRefusedNamingTheMember) {
  ExpectRefused(HostileTar("dotdot.tar", "add('../evil')"), "\"../evil\" escapes");
  ExpectRefused(HostileTar("deep.tar", "add('a', tarfile.DIRTYPE); add('a/../../evil')"),
                "escapes");
  ExpectRefused(HostileTar("through-link.tar",
                           "add('etc', tarfile.SYMTYPE, linkname='/etc');"
                           " add('etc/passwd', data=b'root::0:0::/:/bin/sh')"),
                "\"/etc\" is not a directory in this layer");
  ExpectRefused(
      HostileTar("hardlink.tar", "add('x', tarfile.LNKTYPE, linkname='../../etc/passwd')"),
      "escapes");
  ExpectRefused(
      HostileTar("device.tar", "add('dev/null', tarfile.CHRTYPE, devmajor=1, devminor=3)"),
      "member \"dev/null\"");
  ExpectRefused(HostileTar("fifo.tar", "add('run/fifo', tarfile.FIFOTYPE)"),
                "layers hold files, directories and links only");

  // A leading '/' is dropped, as tar does: the member lands inside.
  const fs::path absolute = HostileTar("absolute.tar", "add('/abs/file', data=b'in')");
  auto image = Import(absolute, "absolute");
  ASSERT_THAT(image, IsOk());
  EXPECT_EQ(Layer("absolute", *image)["abs/file"].content, "in");
}

TEST_F(ImportImageTest, DevicesInADirectoryAndNonArchivesAreRefused) {
  ASSERT_EQ(::mkfifo((rootfs_ / "fifo").c_str(), 0600), 0);
  ExpectRefused(rootfs_, (rootfs_ / "fifo").string() + " is a socket, fifo or device");
  fs::remove(rootfs_ / "fifo");

  packager::testing::WriteFile(dir_.path() / "notes.txt", "not an archive\n");
  ExpectRefused(dir_.path() / "notes.txt", "not a directory or a tar archive");
  ExpectRefused(dir_.path() / "missing", "missing", absl::StatusCode::kNotFound);
}

TEST_F(ImportImageTest, BadChangesAreRefusedBeforeTheLayerIsWritten) {
  ExpectRefused(rootfs_,
                "--change \"RUN echo hi\": RUN cannot be a change; the changes are CMD, "
                "ENTRYPOINT, ENV, EXPOSE, LABEL, ONBUILD, STOPSIGNAL, USER, VOLUME, WORKDIR",
                absl::StatusCode::kInvalidArgument, {"ENV A=1", "RUN echo hi"});
  auto bad = [&](const std::string& change, const std::string& message) {
    ExpectRefused(rootfs_, "--change \"" + change + "\": " + message,
                  absl::StatusCode::kInvalidArgument, {change});
  };
  bad("FROM debian", "FROM cannot be a change");
  bad("ENV", "ENV");
  bad("EXPOSE 70000", "EXPOSE");
  bad("ENV A=1\nENV B=2", "more than one instruction");
  bad("", "no instruction");
}

}  // namespace
}  // namespace trainpkg::packager::builder
