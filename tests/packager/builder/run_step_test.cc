// RUN under runc: a busybox-static base image (built FROM scratch, exported
// to an oci: layout), Dockerfiles that RUN commands over it, and the layers
// they make read back with libarchive and unpacked by umoci, an independent
// reader; a registry base (Debian's docker-registry on 127.0.0.1, fed by
// skopeo) whose layers a RUN downloads. Skipped, with the reason, unless
// root (runc and overlayfs need it).
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <filesystem>
#include <map>
#include <optional>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "packager/builder/builder.h"
#include "packager/builder/image_export.h"
#include "packager/builder/registry_base_source.h"
#include "packager/bundle/bundle_image.h"
#include "packager/run/resolv_conf.h"
#include "packager/run/slirp_network.h"
#include "registry/oci/layout.h"
#include "registry/registry_client.h"
#include "tests/packager/builder/builder_test_util.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/registry/registry_server.h"
#include "tests/test_util/file.h"
#include "tests/test_util/loopback_listener.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager::builder {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using testing::ScratchDir;
using testing::Sh;
using ::testing::UnorderedElementsAre;
using testing::WriteFile;
using Result = testing::ShellResult;

using trainpkg::testing::Slurp;

class RunStepTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (::geteuid() != 0) GTEST_SKIP() << "RUN needs root (runc, overlayfs)";
    ASSERT_TRUE(fs::exists("/bin/busybox"))
        << "busybox-static is missing (scripts/install-deps.sh)";
    Result runc = Sh("runc --version");
    ASSERT_EQ(runc.code, 0) << "runc is missing (scripts/install-deps.sh): " << runc.out;
    // The base: busybox with the applets the tests use, /etc/something to
    // delete and /etc/keep to keep.
    const fs::path base_ctx = dir_.path() / "base-ctx";
    fs::create_directories(base_ctx / "root/bin");
    fs::copy_file("/bin/busybox", base_ctx / "root/bin/busybox");
    for (const char* applet :
         {"sh", "rm", "mkdir", "cat", "chmod", "chown", "echo", "id", "pwd", "nc"}) {
      fs::create_symlink("busybox", base_ctx / "root/bin" / applet);
    }
    WriteFile(base_ctx / "root/etc/something", "delete me\n");
    WriteFile(base_ctx / "root/etc/keep", "keep me\n");
    WriteFile(base_ctx / "root/srv/old", "replace me\n");
    // As in Debian's images; without it glibc asks DNS before /etc/hosts.
    WriteFile(base_ctx / "root/etc/nsswitch.conf", "hosts: files dns\n");
    WriteFile(base_ctx / "root/etc/passwd",
              "root:x:0:0:root:/root:/bin/sh\n"
              "trainer:x:1000:1000::/home/trainer:/bin/sh\n");
    WriteFile(base_ctx / "Dockerfile", "FROM scratch\nCOPY root/ /\nENV PATH=/bin\n");
    BuiltImage base = BuildOk(base_ctx);
    base_layer_ = base.manifest.layers.at(0);
    auto store = oci::Layout::Open(dir_.path() / "home/images");
    ASSERT_THAT(store, IsOk());
    auto out = oci::Layout::Create(dir_.path() / "base");
    ASSERT_THAT(out, IsOk());
    ASSERT_THAT(ExportImage(base, *store, *out, "1", false), IsOk());
    ctx_ = dir_.path() / "ctx";
    WriteFile(ctx_ / "input.txt", "from the context\n");
  }

  absl::StatusOr<BuiltImage> Build(const fs::path& context, BuildStats* stats = nullptr,
                                   RegistryBaseSource* registry = nullptr) {
    auto store = oci::Layout::Create(dir_.path() / "home/images");
    if (!store.ok()) return store.status();
    BuilderOptions options{*store, dir_.path() / "home/build-cache", registry, {}, {}, {}};
    options.run_output = [this](std::string_view chunk) { output_.append(chunk); };
    Builder builder(options);
    BuildRequest request = request_;
    request.context_dir = context;
    request.source_date_epoch = source_date_epoch_;
    auto image = builder.Build(request);
    if (image.ok() && stats != nullptr) *stats = image->stats;
    return image;
  }

  BuiltImage BuildOk(const fs::path& context) {
    auto image = Build(context);
    EXPECT_THAT(image, IsOk());
    return image.ok() ? *image : BuiltImage{};
  }

  std::string FromBase() const { return "FROM oci:" + (dir_.path() / "base").string() + ":1\n"; }

  // The entries of layer `index` of `image`, by name.
  std::map<std::string, packager::testing::ReadEntry> LayerEntries(const BuiltImage& image,
                                                                   size_t index) {
    std::map<std::string, packager::testing::ReadEntry> entries;
    if (index >= image.manifest.layers.size()) {
      ADD_FAILURE() << "no layer " << index;
      return entries;
    }
    auto store = oci::Layout::Open(dir_.path() / "home/images");
    EXPECT_THAT(store, IsOk());
    const std::string blob = Slurp(store->BlobPath(image.manifest.layers[index].digest));
    for (auto& entry : packager::testing::ReadTar(blob)) entries[entry.name] = entry;
    return entries;
  }

  // umoci's unpack of `image` (exported to a layout); returns the rootfs.
  fs::path Unpack(const BuiltImage& image, const std::string& name) {
    auto store = oci::Layout::Open(dir_.path() / "home/images");
    EXPECT_THAT(store, IsOk());
    auto out = oci::Layout::Create(dir_.path() / ("out-" + name));
    EXPECT_THAT(out, IsOk());
    EXPECT_THAT(ExportImage(image, *store, *out, "1", false), IsOk());
    const fs::path bundle = dir_.path() / ("bundle-" + name);
    Result r = Sh("umoci unpack --image " + out->root().string() + ":1 " + bundle.string());
    EXPECT_EQ(r.code, 0) << r.out;
    return bundle / "rootfs";
  }

  ScratchDir dir_;
  fs::path ctx_;
  BuildRequest request_;  // what Build() asks for, besides the context
  oci::Descriptor base_layer_;
  std::string output_;
  std::optional<int64_t> source_date_epoch_;  // the builds' SOURCE_DATE_EPOCH
};

std::vector<std::string> Names(const std::map<std::string, packager::testing::ReadEntry>& m) {
  std::vector<std::string> names;
  for (const auto& [name, entry] : m) names.push_back(name);
  return names;
}

TEST_F(RunStepTest, ChangesBecomeALayerWithWhiteouts) {
  WriteFile(ctx_ / "Dockerfile",
            FromBase() + "RUN echo hi > /x && rm /etc/something && mkdir /d && echo done\n");
  BuiltImage image = BuildOk(ctx_);
  ASSERT_EQ(image.manifest.layers.size(), 2u);
  EXPECT_EQ(image.config.rootfs.diff_ids.size(), 2u);
  EXPECT_THAT(output_, HasSubstr("done"));
  auto entries = LayerEntries(image, 1);  // directories end in '/'
  // Only what the command changed: no /proc, /dev or /sys mount points.
  EXPECT_THAT(Names(entries), UnorderedElementsAre("x", "d/", "etc/", "etc/.wh.something"));
  EXPECT_EQ(entries["x"].content, "hi\n");
  EXPECT_EQ(entries["d/"].type, 'd');

  const fs::path rootfs = Unpack(image, "run");
  EXPECT_EQ(Slurp(rootfs / "x"), "hi\n");
  EXPECT_FALSE(fs::exists(rootfs / "etc/something"));
  EXPECT_EQ(Slurp(rootfs / "etc/keep"), "keep me\n");
  EXPECT_TRUE(fs::is_directory(rootfs / "d"));
}

// Issue #17 item 9: what a RUN wrote keeps its mtime without
// SOURCE_DATE_EPOCH (BuildKit's rule; it was 0 before) and is clamped to it
// when set.
TEST_F(RunStepTest, RunOutputKeepsItsMtimeUnlessAnEpochClampsIt) {
  WriteFile(ctx_ / "Dockerfile", FromBase() + "RUN echo hi > /x\n");
  const int64_t before = ::time(nullptr);
  BuiltImage kept = BuildOk(ctx_);
  const int64_t after = ::time(nullptr);
  auto entries = LayerEntries(kept, 1);
  EXPECT_GE(entries["x"].mtime, before);
  EXPECT_LE(entries["x"].mtime, after);

  source_date_epoch_ = 1'700'000'000;
  BuiltImage clamped = BuildOk(ctx_);
  EXPECT_EQ(LayerEntries(clamped, 1)["x"].mtime, 1'700'000'000);
}

TEST_F(RunStepTest, ReplacedDirectoryIsOpaqueAndModesAndOwnersAreKept) {
  WriteFile(ctx_ / "Dockerfile",
            FromBase() +
                "RUN rm -r /srv && mkdir /srv && echo new > /srv/n && chmod 4750 /srv/n && "
                "mkdir /home && mkdir /home/trainer && chown 1000:1000 /home/trainer\n");
  BuiltImage image = BuildOk(ctx_);
  auto entries = LayerEntries(image, 1);
  EXPECT_TRUE(entries.count("srv/.wh..wh..opq")) << ::testing::PrintToString(Names(entries));
  EXPECT_EQ(entries["srv/n"].mode & 07777, 04750u);
  EXPECT_EQ(entries["home/trainer/"].uid, 1000);
  EXPECT_EQ(entries["home/trainer/"].gid, 1000);
  const fs::path rootfs = Unpack(image, "opaque");
  EXPECT_EQ(Slurp(rootfs / "srv/n"), "new\n");
  EXPECT_FALSE(fs::exists(rootfs / "srv/old"));
}

TEST_F(RunStepTest, SeesEnvArgsWorkdirUserAndEarlierLayers) {
  WriteFile(ctx_ / "Dockerfile",
            FromBase() +
                "ARG GREETING=hello\n"
                "ENV WHO=world\n"
                "COPY input.txt /in/input.txt\n"
                "WORKDIR /work\n"
                "RUN [\"/bin/sh\", \"-c\", \"echo $GREETING-$WHO-$(pwd) > out && "
                "cat /in/input.txt > copied && rm /etc/keep\"]\n"
                "RUN cat out copied > both && rm /in/input.txt\n"
                "RUN mkdir -p /home/trainer && chown 1000:1000 /home/trainer\n"
                "USER trainer\n"
                "RUN id -u > /home/trainer/uid\n");
  BuiltImage image = BuildOk(ctx_);
  ASSERT_EQ(image.manifest.layers.size(), 6u);
  EXPECT_THAT(Names(LayerEntries(image, 3)),
              UnorderedElementsAre("in/", "in/.wh.input.txt", "work/", "work/both"));
  const fs::path rootfs = Unpack(image, "env");
  EXPECT_EQ(Slurp(rootfs / "work/both"), "hello-world-/work\nfrom the context\n");
  EXPECT_FALSE(fs::exists(rootfs / "etc/keep"));
  EXPECT_FALSE(fs::exists(rootfs / "in/input.txt"));
  EXPECT_EQ(image.config.config.env, (std::vector<std::string>{"PATH=/bin", "WHO=world"}))
      << "build args stay out of the image";
  EXPECT_EQ(Slurp(rootfs / "home/trainer/uid"), "1000\n");
}

TEST_F(RunStepTest, HeredocScriptsStdinAndTabStripping) {
  WriteFile(ctx_ / "Dockerfile", FromBase() +
                                     "ARG WHO=world\n"
                                     "RUN <<EOF\n"
                                     "set -e\n"
                                     "mkdir -p /out\n"
                                     "echo \"script $WHO\" > /out/script.txt\n"
                                     "EOF\n"
                                     "RUN cat > /out/stdin.txt <<END\n"
                                     "stdin $WHO\n"
                                     "END\n"
                                     "RUN cat <<-EOT > /out/tabs.txt\n"
                                     "\tindented\n"
                                     "\t\tEOT\n"
                                     "RUN <<-EOT\n"
                                     "\techo script-tabs > /out/script-tabs.txt\n"
                                     "\tEOT\n"
                                     "RUN <<'X' cat > /out/quoted.txt\n"
                                     "$WHO stays\n"
                                     "X\n"
                                     "RUN <<SH\n"
                                     "#!/bin/sh\n"
                                     "echo \"shebang $0\" > /out/shebang.txt\n"
                                     "SH\n"
                                     "RUN <<A cat > /out/a && <<B cat > /out/b\n"
                                     "a\n"
                                     "A\n"
                                     "b\n"
                                     "B\n"
                                     "RUN mkdir -p /home/trainer && chown 1000:1000 /home/trainer\n"
                                     "USER trainer\n"
                                     "RUN <<SH\n"
                                     "#!/bin/sh\n"
                                     "id -u > /home/trainer/uid\n"
                                     "SH\n");
  BuildStats stats;
  auto built = Build(ctx_, &stats);
  ASSERT_THAT(built, IsOk()) << built.status() << "\n" << output_;
  const BuiltImage& image = *built;
  ASSERT_EQ(image.manifest.layers.size(), 10u);
  EXPECT_EQ(LayerEntries(image, 1)["out/script.txt"].content, "script world\n");
  EXPECT_EQ(LayerEntries(image, 2)["out/stdin.txt"].content, "stdin world\n");
  EXPECT_EQ(LayerEntries(image, 3)["out/tabs.txt"].content, "indented\n");
  EXPECT_EQ(LayerEntries(image, 4)["out/script-tabs.txt"].content, "script-tabs\n");
  EXPECT_EQ(LayerEntries(image, 5)["out/quoted.txt"].content, "$WHO stays\n");
  // Run directly from its mounted file, which stays out of the layer.
  auto shebang = LayerEntries(image, 6);
  EXPECT_THAT(Names(shebang), UnorderedElementsAre("out/", "out/shebang.txt"));
  EXPECT_EQ(shebang["out/shebang.txt"].content, "shebang /dev/pipes/SH\n");
  EXPECT_EQ(LayerEntries(image, 7)["out/a"].content, "a\n");
  EXPECT_EQ(LayerEntries(image, 7)["out/b"].content, "b\n");
  EXPECT_EQ(LayerEntries(image, 9)["home/trainer/uid"].content, "1000\n")
      << "a #! script runs as the stage's user";
  const fs::path rootfs = Unpack(image, "heredoc");
  EXPECT_EQ(Slurp(rootfs / "out/script.txt"), "script world\n");
  EXPECT_FALSE(fs::exists(rootfs / "dev/pipes"));

  BuildStats again;
  auto rebuilt = Build(ctx_, &again);
  ASSERT_THAT(rebuilt, IsOk());
  EXPECT_EQ(again.layers_written, 0);
  EXPECT_EQ(rebuilt->manifest_descriptor.digest, image.manifest_descriptor.digest);
  // A changed body runs again.
  std::string text = Slurp(ctx_ / "Dockerfile");
  text.replace(text.find("stdin $WHO"), 10, "other $WHO");
  WriteFile(ctx_ / "Dockerfile", text);
  auto changed = Build(ctx_, &again);
  ASSERT_THAT(changed, IsOk());
  EXPECT_EQ(again.layers_cached, 1) << "the first RUN; the changed one and those after it run";
  EXPECT_EQ(LayerEntries(*changed, 2)["out/stdin.txt"].content, "other world\n");
}

TEST_F(RunStepTest, FailingCommandNamesTheLineAndExitCode) {
  WriteFile(ctx_ / "Dockerfile", FromBase() + "ENV A=1\nRUN echo oops && exit 3\n");
  auto image = Build(ctx_);
  ASSERT_FALSE(image.ok());
  EXPECT_EQ(image.status().code(), absl::StatusCode::kAborted);
  EXPECT_THAT(std::string(image.status().message()),
              HasSubstr("Dockerfile:3: RUN: the command exited with code 3"));
  EXPECT_THAT(std::string(image.status().message()), HasSubstr("oops"));
  EXPECT_THAT(Sh("runc list -q").out,
              Not(HasSubstr("trainpkg-build-" + std::to_string(::getpid()))));
  const fs::path work = dir_.path() / "home/build-cache/run";
  std::vector<fs::path> left;
  if (fs::exists(work)) left.assign(fs::directory_iterator(work), fs::directory_iterator());
  EXPECT_THAT(left, IsEmpty()) << "RUN work directories are removed";
}

TEST_F(RunStepTest, RebuildIsCachedAndIdentical) {
  WriteFile(ctx_ / "Dockerfile", FromBase() + "RUN echo hi > /x\n");
  BuildStats first_stats, second_stats;
  auto first = Build(ctx_, &first_stats);
  ASSERT_THAT(first, IsOk());
  auto second = Build(ctx_, &second_stats);
  ASSERT_THAT(second, IsOk());
  EXPECT_EQ(first_stats.layers_written, 1);
  EXPECT_EQ(second_stats.layers_written, 0);
  EXPECT_EQ(second_stats.layers_cached, 1);
  EXPECT_EQ(first->manifest_descriptor.digest, second->manifest_descriptor.digest);
}

TEST_F(RunStepTest, CopyFromAStageReadsWhatItsRunMade) {
  WriteFile(ctx_ / "Dockerfile", "FROM oci:" + (dir_.path() / "base").string() +
                                     ":1 AS build\n"
                                     "RUN mkdir /out && echo built > /out/app\n"
                                     "FROM scratch\n"
                                     "COPY --from=build /out/app /app\n"
                                     "COPY --from=build /out/ /outdir/\n");
  BuiltImage image = BuildOk(ctx_);
  ASSERT_EQ(image.manifest.layers.size(), 2u);
  auto first = LayerEntries(image, 0);
  EXPECT_THAT(Names(first), UnorderedElementsAre("app"));
  EXPECT_EQ(first["app"].content, "built\n");
  auto second = LayerEntries(image, 1);
  EXPECT_THAT(Names(second), UnorderedElementsAre("outdir/", "outdir/app"));
  EXPECT_EQ(second["outdir/app"].content, "built\n");
}

TEST_F(RunStepTest, RegistryBaseLayersAreDownloadedForRun) {
  registry::testing::RegistryServer server;
  absl::Status started = server.Start({});
  ASSERT_THAT(started, IsOk());
  const std::string remote = server.host() + "/test/base:1";
  Result pushed = Sh("skopeo copy --dest-tls-verify=false oci:" + (dir_.path() / "base").string() +
                     ":1 docker://" + remote);
  ASSERT_EQ(pushed.code, 0) << pushed.out;
  // The store must get the base's layer from the registry.
  auto store = oci::Layout::Open(dir_.path() / "home/images");
  ASSERT_THAT(store, IsOk());
  fs::remove(store->BlobPath(base_layer_.digest));

  WriteFile(ctx_ / "Dockerfile", "FROM " + remote + "\nRUN rm /etc/something && echo hi > /x\n");
  registry::RegistryClient client{registry::RegistryClientOptions{}};
  RegistryClientBaseSource source(&client);
  auto image = Build(ctx_, nullptr, &source);
  ASSERT_THAT(image, IsOk());
  EXPECT_TRUE(store->HasBlob(base_layer_.digest));
  ASSERT_EQ(image->manifest.layers.size(), 2u);
  EXPECT_EQ(image->manifest.layers[0].digest, base_layer_.digest);
  EXPECT_THAT(Names(LayerEntries(*image, 1)),
              UnorderedElementsAre("x", "etc/", "etc/.wh.something"));
}

// A network the test owns: a namespace with one end of a veth pair
// (10.213.77.2/30; the host end 10.213.77.1/30) and busybox httpd serving
// hello.txt there on port 8080.
class TestNetwork {
 public:
  static constexpr char kHost[] = "10.213.77.2";

  explicit TestNetwork(const fs::path& www) {
    const int id = ::getpid() % 100000;
    ns_ = "tp-run-test-" + std::to_string(id);
    host_if_ = "tprt" + std::to_string(id);
    WriteFile(www / "hello.txt", "hello from the test network\n");
    Result made = Sh(
        "ip netns add " + ns_ + " && ip link add " + host_if_ + " type veth peer name eth0 netns " +
        ns_ + " && ip addr add 10.213.77.1/30 dev " + host_if_ + " && ip link set " + host_if_ +
        " up && ip -n " + ns_ + " addr add 10.213.77.2/30 dev eth0 && ip -n " + ns_ +
        " link set eth0 up && ip -n " + ns_ + " link set lo up");
    EXPECT_EQ(made.code, 0) << made.out;
    Result server = Sh("ip netns exec " + ns_ + " /bin/busybox httpd -p " + kHost + ":8080 -h " +
                       www.string() + " 2>&1");
    EXPECT_EQ(server.code, 0) << server.out;  // httpd daemonizes
  }
  ~TestNetwork() {
    Sh("ip netns pids " + ns_ + " | xargs -r kill; ip netns del " + ns_ + "; ip link del " +
       host_if_ + " 2>/dev/null");
  }

 private:
  std::string ns_;
  std::string host_if_;
};

TEST_F(RunStepTest, RunReachesTheNetworkButNotTheHostLoopback) {
  TestNetwork network(dir_.path() / "www");
  trainpkg::testing::LoopbackListener host_service;
  const std::string port = std::to_string(host_service.port());
  WriteFile(ctx_ / "Dockerfile",
            FromBase() +
                "RUN printf 'GET /hello.txt HTTP/1.0\\r\\n\\r\\n' | /bin/busybox nc -w 3 " +
                TestNetwork::kHost + " 8080 > /got.txt && (/bin/busybox nc -w 2 10.0.2.2 " + port +
                " </dev/null || echo refused >> /host.txt) && (/bin/busybox nc -w 2 127.0.0.1 " +
                port + " </dev/null || echo refused >> /host.txt)\n");
  auto image = Build(ctx_);
  ASSERT_THAT(image, IsOk()) << image.status() << output_;
  auto entries = LayerEntries(*image, 1);
  EXPECT_THAT(entries["got.txt"].content, HasSubstr("hello from the test network\n"));
  EXPECT_EQ(entries["host.txt"].content, "refused\nrefused\n");
  EXPECT_EQ(host_service.Accepted(), 0) << "RUN reached a service on the host's 127.0.0.1";
}

// Like docker build: RUN reads an /etc/hosts (localhost, its host name,
// --add-host) and an /etc/resolv.conf whose only nameserver is slirp4netns's
// DNS forwarder (never the host's, which may be a loopback stub); neither
// file, nor the mount points runc makes for them in a stage without them
// (nor /etc, when the command writes nothing there), is in the layer.
TEST_F(RunStepTest, RunSeesHostsAndResolvConfButTheyNeverLandInTheLayer) {
  TestNetwork network(dir_.path() / "www");
  request_.add_hosts = {{"test-server", TestNetwork::kHost}, {"other", "fd00::1"}};
  WriteFile(ctx_ / "Dockerfile",
            FromBase() +
                "RUN cat /etc/hosts > /hosts.txt && cat /etc/resolv.conf > /resolv.txt && "
                "(rm /etc/hosts || echo busy > /rm.txt)\n"
                "RUN true\n"
                "RUN printf 'GET /hello.txt HTTP/1.0\\r\\n\\r\\n' | nc -w 3 test-server 8080 > "
                "/got.txt\n"
                "RUN echo x > /etc/new\n");
  auto image = Build(ctx_);
  ASSERT_THAT(image, IsOk()) << image.status() << output_;
  ASSERT_EQ(image->manifest.layers.size(), 5u);
  auto first = LayerEntries(*image, 1);
  EXPECT_THAT(Names(first), UnorderedElementsAre("hosts.txt", "resolv.txt", "rm.txt"));
  EXPECT_EQ(first["hosts.txt"].content,
            "127.0.0.1\tlocalhost\n::1\tlocalhost ip6-localhost ip6-loopback\n"
            "127.0.0.1\tbuildkitsandbox\n10.213.77.2\ttest-server\nfd00::1\tother\n");
  absl::StatusOr<std::string> host_conf = run::ReadHostResolvConf("/etc/resolv.conf");
  ASSERT_THAT(host_conf, IsOk());
  EXPECT_EQ(first["resolv.txt"].content,
            run::ResolvConfWithNameserver(*host_conf, run::SlirpNetwork::kDnsServer));
  EXPECT_EQ(first["rm.txt"].content, "busy\n");
  EXPECT_THAT(Names(LayerEntries(*image, 2)), IsEmpty()) << "RUN true";
  auto got = LayerEntries(*image, 3);
  EXPECT_THAT(Names(got), UnorderedElementsAre("got.txt"));
  EXPECT_THAT(got["got.txt"].content, HasSubstr("hello from the test network\n"));
  EXPECT_THAT(Names(LayerEntries(*image, 4)), UnorderedElementsAre("etc/", "etc/new"));
  const fs::path rootfs = Unpack(*image, "etc");
  EXPECT_FALSE(fs::exists(rootfs / "etc/hosts"));
  EXPECT_FALSE(fs::exists(rootfs / "etc/resolv.conf"));

  // A stage with no /etc at all: runc makes /etc for the mount points.
  WriteFile(ctx_ / "Dockerfile", FromBase() +
                                     "RUN true\n"
                                     "FROM scratch\n"
                                     "COPY --from=0 /bin/busybox /bin/busybox\n"
                                     "RUN [\"/bin/busybox\", \"true\"]\n");
  auto scratch = Build(ctx_);
  ASSERT_THAT(scratch, IsOk()) << scratch.status() << output_;
  ASSERT_EQ(scratch->manifest.layers.size(), 2u);
  EXPECT_THAT(Names(LayerEntries(*scratch, 1)), IsEmpty());

  // An image whose /etc/resolv.conf links to systemd-resolved's stub (absent
  // in a container): runc mounts at the link's target, creating it and its
  // directories; none of them is in the layer, and the link is unchanged.
  fs::create_directories(ctx_ / "linked-etc");
  fs::create_symlink("../run/systemd/resolve/stub-resolv.conf", ctx_ / "linked-etc/resolv.conf");
  WriteFile(ctx_ / "Dockerfile", FromBase() +
                                     "COPY linked-etc/ /etc/\n"
                                     "RUN cat /etc/resolv.conf > /seen.txt\n");
  auto linked = Build(ctx_);
  ASSERT_THAT(linked, IsOk()) << linked.status() << output_;
  ASSERT_EQ(linked->manifest.layers.size(), 3u);
  auto seen = LayerEntries(*linked, 2);
  EXPECT_THAT(Names(seen), UnorderedElementsAre("seen.txt"));
  EXPECT_EQ(seen["seen.txt"].content, first["resolv.txt"].content);
}

// This process's RUN network namespaces still in /run/netns.
std::vector<std::string> NetworkNamespacesOfThisProcess() {
  const std::string prefix = "trainpkg-build-" + std::to_string(::getpid()) + "-";
  std::vector<std::string> names;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator("/run/netns", ec)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(prefix, 0) == 0) names.push_back(name);
  }
  return names;
}

// `--network=none` (the build's or one RUN's): a namespace with only a
// loopback interface. A lookup fails at once with the resolver's error
// (slirp4netns's forwarder has no route there), not after a timeout, and
// nothing outside is reached.
TEST_F(RunStepTest, NetworkNoneFailsLookupsFastAndReachesNothing) {
  TestNetwork network(dir_.path() / "www");
  WriteFile(ctx_ / "Dockerfile",
            FromBase() + "RUN (nc -w 3 " + std::string(TestNetwork::kHost) +
                " 8080 </dev/null || echo unreachable > /u.txt) && cat /etc/hosts > /hosts.txt\n" +
                "RUN --network=default printf 'GET /hello.txt HTTP/1.0\\r\\n\\r\\n' | nc -w 3 " +
                TestNetwork::kHost + " 8080 > /got.txt\n");
  request_.network = RunNetwork::kNone;
  auto image = Build(ctx_);
  ASSERT_THAT(image, IsOk()) << image.status() << output_;
  auto entries = LayerEntries(*image, 1);
  EXPECT_EQ(entries["u.txt"].content, "unreachable\n");
  EXPECT_THAT(entries["hosts.txt"].content, HasSubstr("buildkitsandbox"));
  EXPECT_THAT(LayerEntries(*image, 2)["got.txt"].content,
              HasSubstr("hello from the test network\n"))
      << "RUN --network=default overrides the build's none";

  // busybox-static cannot ask DNS (static glibc), so the lookup runs in
  // the host's curl and its shared libraries (--bundle-libs), as apt or pip
  // would in a Debian image.
  auto store = oci::Layout::Open(dir_.path() / "home/images");
  ASSERT_THAT(store, IsOk());
  bundle::BundleRequest curl;
  curl.binary = "/usr/bin/curl";
  auto curl_image = bundle::BuildBundle(curl, *store);
  ASSERT_THAT(curl_image, IsOk());
  auto curl_layout = oci::Layout::Create(dir_.path() / "curl");
  ASSERT_THAT(curl_layout, IsOk());
  ASSERT_THAT(ExportImage(*curl_image, *store, *curl_layout, "1", false), IsOk());
  request_.network = RunNetwork::kDefault;
  WriteFile(ctx_ / "Dockerfile",
            "FROM oci:" + (dir_.path() / "curl").string() +
                ":1\nRUN --network=none [\"/usr/local/bin/curl\", \"-sS\", \"-m\", \"60\", "
                "\"http://deb.debian.org/\"]\n");
  const auto start = std::chrono::steady_clock::now();
  auto offline = Build(ctx_);
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ASSERT_FALSE(offline.ok());
  EXPECT_THAT(std::string(offline.status().message()),
              HasSubstr("Could not resolve host: deb.debian.org"));
  EXPECT_LT(seconds, 15) << "the lookup should fail at once, not time out";
  EXPECT_THAT(NetworkNamespacesOfThisProcess(), IsEmpty());
}

// Docker's predefined proxy args reach RUN without an ARG, stay out of the
// image config and history, and (as in BuildKit, which keeps an exec's
// ProxyEnv out of its cache key) out of the layer cache key unless an ARG
// declares them; --network=none and --add-host names are in the key.
TEST_F(RunStepTest, ProxyBuildArgsReachRunButNeitherTheImageNorTheCacheKey) {
  WriteFile(ctx_ / "Dockerfile",
            FromBase() + "RUN echo \"$HTTP_PROXY $no_proxy $UNDECLARED\" > /proxy.txt\n");
  request_.build_args = {
      {"HTTP_PROXY", "http://proxy.example:3128"}, {"no_proxy", "localhost"}, {"UNDECLARED", "x"}};
  BuildStats stats;
  auto image = Build(ctx_, &stats);
  ASSERT_THAT(image, IsOk()) << image.status() << output_;
  EXPECT_EQ(LayerEntries(*image, 1)["proxy.txt"].content, "http://proxy.example:3128 localhost \n");
  EXPECT_EQ(image->config.config.env, std::vector<std::string>{"PATH=/bin"});
  for (const oci::HistoryEntry& entry : image->config.history) {
    EXPECT_THAT(entry.created_by, Not(HasSubstr("proxy.example"))) << entry.created_by;
  }
  EXPECT_EQ(stats.layers_written, 1);

  request_.build_args["HTTP_PROXY"] = "http://other-proxy.example:8080";
  ASSERT_THAT(Build(ctx_, &stats), IsOk());
  EXPECT_EQ(stats.layers_cached, 1) << "a proxy change alone is no cache miss";

  request_.network = RunNetwork::kNone;
  ASSERT_THAT(Build(ctx_, &stats), IsOk());
  EXPECT_EQ(stats.layers_written, 1) << "--network=none is keyed";
  request_.add_hosts = {{"db", "10.0.0.5"}};
  ASSERT_THAT(Build(ctx_, &stats), IsOk());
  EXPECT_EQ(stats.layers_written, 1) << "an added host name is keyed";
  request_.add_hosts = {{"db", "10.0.0.6"}};
  ASSERT_THAT(Build(ctx_, &stats), IsOk());
  EXPECT_EQ(stats.layers_cached, 1) << "its address is not";

  WriteFile(ctx_ / "Dockerfile", FromBase() + "ARG HTTP_PROXY\nRUN echo \"$HTTP_PROXY\" > /p\n");
  ASSERT_THAT(Build(ctx_, &stats), IsOk());
  request_.build_args["HTTP_PROXY"] = "http://third-proxy.example:8080";
  auto declared = Build(ctx_, &stats);
  ASSERT_THAT(declared, IsOk());
  EXPECT_EQ(stats.layers_written, 1) << "declared with ARG, the proxy arg is keyed";
  EXPECT_EQ(LayerEntries(*declared, 1)["p"].content, "http://third-proxy.example:8080\n");
}

// CapBnd of a /proc/<pid>/status text as a number.
uint64_t BoundingCapabilities(const std::string& status) {
  const size_t at = status.find("CapBnd:");
  if (at == std::string::npos) return ~0ULL;
  return std::stoull(status.substr(at + 7), nullptr, 16);
}

TEST_F(RunStepTest, RunHasItsOwnHostNameSeccompAndNoRawSocketsOrDeviceNodes) {
  WriteFile(
      ctx_ / "Dockerfile",
      FromBase() +
          "RUN cat /proc/self/status > /status.txt && /bin/busybox hostname > /hostname.txt && "
          "(/bin/busybox mknod /blk b 7 0 || echo refused > /mknod.txt)\n");
  auto image = Build(ctx_);
  ASSERT_THAT(image, IsOk()) << image.status() << output_;
  auto entries = LayerEntries(*image, 1);
  EXPECT_THAT(entries["status.txt"].content, HasSubstr("Seccomp:\t2\n"));
  const uint64_t caps = BoundingCapabilities(entries["status.txt"].content);
  EXPECT_EQ(caps & (1ULL << 13), 0u) << "CAP_NET_RAW kept";
  EXPECT_EQ(caps & (1ULL << 27), 0u) << "CAP_MKNOD kept";
  EXPECT_EQ(entries["hostname.txt"].content, "buildkitsandbox\n");
  EXPECT_EQ(entries["mknod.txt"].content, "refused\n");
  EXPECT_FALSE(entries.contains("blk"));
}

// Issue #17 item 9: a Python tree copied with its .pyc files (compiled on the
// host, timestamp-checked: the .pyc records its source's mtime) stays valid in
// the image, so a RUN that imports it writes nothing. When COPY set every
// mtime to 1970, every .pyc was stale and the RUN rewrote them into its layer.
// The image's python is the host's, with its libraries and the few stdlib
// modules an import needs.
TEST_F(RunStepTest, RunImportingACopiedPythonTreeWritesNoPycFiles) {
  if (!fs::exists("/usr/bin/python3")) GTEST_SKIP() << "no /usr/bin/python3 on this host";
  const fs::path ctx = dir_.path() / "py";
  WriteFile(ctx / "trainer/__init__.py", "");
  WriteFile(ctx / "trainer/util.py", "def steps():\n    return [1, 2]\n");
  WriteFile(ctx / "trainer/task.py", "from trainer import util\nSTEPS = util.steps()\n");
  Result made = Sh(
      "set -e; cd " + ctx.string() +
      "; py=$(readlink -f /usr/bin/python3); ver=$(basename $py); lib=root/usr/lib/$ver;"
      " mkdir -p root/usr/bin $lib/lib-dynload; cp $py root/usr/bin/python3;"
      " for so in $(ldd $py | awk '$2 == \"=>\" {print $3} $1 ~ /^\\// {print $1}'); do"
      "   mkdir -p root$(dirname $so); cp -L $so root$so; done;"
      " cp /usr/lib/$ver/os.py $lib/; cp -r /usr/lib/$ver/encodings $lib/;"
      " find root -name __pycache__ -prune -exec rm -rf {} +;"
      " $py -m compileall -q --invalidation-mode timestamp $lib trainer");
  ASSERT_EQ(made.code, 0) << made.out;
  WriteFile(ctx / "Dockerfile",
            "FROM scratch\n"
            "COPY root/ /\n"
            "COPY trainer /app/trainer\n"
            "WORKDIR /app\n"
            "RUN [\"/usr/bin/python3\", \"-c\", \"import trainer.task; print(trainer.task.STEPS)\"]\n");
  auto image = Build(ctx);
  ASSERT_THAT(image, IsOk()) << image.status() << output_;
  EXPECT_THAT(output_, HasSubstr("[1, 2]"));
  ASSERT_EQ(image->manifest.layers.size(), 3u);
  EXPECT_THAT(Names(LayerEntries(*image, 2)), IsEmpty()) << "the import rewrote .pyc files";
}

}  // namespace
}  // namespace trainpkg::packager::builder
