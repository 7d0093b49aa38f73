// docker's image verbs on the local store, driven through the real binary:
// images -q / --format json / --filter, images tag|inspect|rm|prune,
// system prune (build cache and rootfs caches, bytes reported), a prune
// racing a build (gc.lock), build --no-cache / --iidfile / --progress, and
// push -q. Remaining images are checked whole with skopeo (an independent
// reader that verifies every blob's digest) and by pushing them to a real
// registry (Debian's docker-registry).
#include <stdio.h>
#include <stdlib.h>

#include <algorithm>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "base/file_util.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "nlohmann/json.hpp"
#include "registry/oci/layout.h"
#include "tests/registry/registry_server.h"
#include "tests/test_util/shell.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;
using trainpkg::testing::ShellQuote;
using Result = trainpkg::testing::ShellResult;

class CliImagesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "trainpkg-cli-images-XXXXXX").string();
    ASSERT_NE(::mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
    WriteContext("ctx", "print('one')\n");
  }
  void TearDown() override { fs::remove_all(dir_); }

  void WriteContext(const std::string& name, const std::string& task) {
    fs::create_directories(dir_ / name / "trainer");
    std::ofstream(dir_ / name / "trainer/task.py") << task;
    std::ofstream(dir_ / name / "Dockerfile")
        << "FROM scratch\n"
           "COPY trainer /app/trainer/\n"
           "ENTRYPOINT [\"python3\", \"-m\", \"trainer.task\"]\n";
  }

  Result Trainpkg(const std::string& args) {
    return trainpkg::testing::Sh("TRAINPKG_HOME=" + ShellQuote(home().string()) +
                                 " " TRAINPKG_PATH " " + args + " </dev/null");
  }
  Result Build(const std::string& tag, const std::string& context = "ctx",
               const std::string& flags = "") {
    return Trainpkg("build -q " + flags + " -t " + tag + " " +
                    ShellQuote((dir_ / context).string()));
  }
  // skopeo reads the store's image and checks every blob against its digest.
  Result SkopeoCopy(const std::string& tag) {
    fs::remove_all(dir_ / "copy");
    return trainpkg::testing::Sh(
        "skopeo copy -q " + ShellQuote("oci:" + (home() / "images").string() + ":" + tag) + " " +
        ShellQuote("oci:" + (dir_ / "copy").string() + ":x") + " 2>&1");
  }
  int BlobCount() {
    int count = 0;
    for (const auto& entry : fs::directory_iterator(home() / "images/blobs/sha256")) {
      (void)entry;
      ++count;
    }
    return count;
  }
  fs::path home() const { return dir_ / "home"; }

  fs::path dir_;
};

TEST_F(CliImagesTest, TagQuietJsonFilterInspectAndRemove) {
  ASSERT_EQ(Build("trainer:v1").code, 0);
  Result tag = Trainpkg("images tag trainer:v1 team/trainer:v2");
  ASSERT_EQ(tag.code, 0) << tag.out;

  Result quiet = Trainpkg("images -q");
  ASSERT_EQ(quiet.code, 0) << quiet.out;
  EXPECT_THAT(quiet.out, MatchesRegex("([0-9a-f]{12}\n){2}"));
  const std::string id = quiet.out.substr(0, 12);

  Result json = Trainpkg("images ls --format json");
  ASSERT_EQ(json.code, 0) << json.out;
  std::istringstream lines(json.out);
  std::string line;
  std::vector<nlohmann::json> rows;
  while (std::getline(lines, line)) rows.push_back(nlohmann::json::parse(line));
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0]["Repository"], "team/trainer");
  EXPECT_EQ(rows[0]["Tag"], "v2");
  EXPECT_EQ(rows[1]["Repository"], "trainer");
  EXPECT_EQ(rows[1]["ID"], rows[0]["ID"]);
  EXPECT_THAT(rows[0]["Digest"].get<std::string>(), HasSubstr("sha256:"));

  Result filtered = Trainpkg("images --filter 'reference=team/*' --format json");
  ASSERT_EQ(filtered.code, 0) << filtered.out;
  EXPECT_THAT(filtered.out, HasSubstr("team/trainer"));
  EXPECT_THAT(filtered.out, Not(HasSubstr("\"trainer\"")));
  EXPECT_EQ(Trainpkg("images -q --filter dangling=true").out, "");
  Result typo = Trainpkg("images rn trainer:v1");
  EXPECT_EQ(typo.code, 2);
  EXPECT_THAT(typo.out,
              HasSubstr("unknown command 'rn' for 'trainpkg images'; did you mean 'rm'?"));
  Result bad_filter = Trainpkg("images --filter label=x");
  EXPECT_EQ(bad_filter.code, 2);
  EXPECT_THAT(bad_filter.out, HasSubstr("--filter \"label=x\": expected reference=PATTERN or "
                                        "dangling=true|false"));

  Result inspect = Trainpkg("images inspect trainer:v1");
  ASSERT_EQ(inspect.code, 0) << inspect.out;
  nlohmann::json inspected = nlohmann::json::parse(inspect.out);
  ASSERT_TRUE(inspected.is_array());
  ASSERT_EQ(inspected.size(), 1u);
  EXPECT_EQ(inspected[0]["Id"].get<std::string>().substr(7, 12), id);
  EXPECT_EQ(inspected[0]["RepoTags"].size(), 2u);
  EXPECT_EQ(inspected[0]["Manifest"]["layers"].size(), 1u);
  EXPECT_EQ(inspected[0]["Config"]["config"]["Entrypoint"][0], "python3");
  Result missing_inspect = Trainpkg("images inspect nosuch");
  EXPECT_EQ(missing_inspect.code, 1);
  EXPECT_THAT(missing_inspect.out, HasSubstr("[]"));
  EXPECT_THAT(missing_inspect.out,
              HasSubstr("trainpkg: error: no such image: docker.io/library/nosuch:latest"));

  // An ID with two tags: refused without -f, naming both.
  Result by_id = Trainpkg("images rm " + id);
  EXPECT_EQ(by_id.code, 1);
  EXPECT_THAT(by_id.out, HasSubstr("must be forced"));
  EXPECT_THAT(by_id.out, HasSubstr("docker.io/team/trainer:v2"));
  Result missing = Trainpkg("images rm nosuch:v9");
  EXPECT_EQ(missing.code, 1);
  EXPECT_THAT(missing.out,
              HasSubstr("trainpkg: error: no such image: docker.io/library/nosuch:v9"));

  // The image keeps another tag: only untagged.
  Result untag = Trainpkg("images rm team/trainer:v2");
  ASSERT_EQ(untag.code, 0) << untag.out;
  EXPECT_EQ(untag.out, "Untagged: docker.io/team/trainer:v2\n");
  EXPECT_EQ(SkopeoCopy("docker.io/library/trainer:v1").code, 0);
  // The last tag: the manifest and config go, the layer stays (the build
  // cache references it, as docker's build cache keeps layers).
  const int before = BlobCount();
  Result last = Trainpkg("images rm trainer:v1");
  ASSERT_EQ(last.code, 0) << last.out;
  EXPECT_THAT(last.out, HasSubstr("Untagged: docker.io/library/trainer:v1\nDeleted: sha256:"));
  EXPECT_EQ(BlobCount(), before - 2);
  EXPECT_EQ(Trainpkg("images -q").out, "");
  // The cached layer is still used by a rebuild.
  Result rebuilt = Trainpkg("build -t trainer:v1 " + ShellQuote((dir_ / "ctx").string()));
  ASSERT_EQ(rebuilt.code, 0) << rebuilt.out;
  EXPECT_THAT(rebuilt.out, HasSubstr("0 layer(s) written, 1 cached"));
}

TEST_F(CliImagesTest, PruneDeletesDanglingImagesAndKeepsTaggedOnesWhole) {
  ASSERT_EQ(Build("trainer:v1").code, 0);
  WriteContext("ctx2", "print('two')\n");
  ASSERT_EQ(Build("keep:v1", "ctx2").code, 0);
  WriteContext("ctx3", "print('three')\n");
  ASSERT_EQ(Build("trainer:v1", "ctx3").code, 0);  // the first trainer:v1 is now dangling

  Result dangling = Trainpkg("images --filter dangling=true");
  ASSERT_EQ(dangling.code, 0) << dangling.out;
  EXPECT_THAT(dangling.out, HasSubstr("<none>"));
  Result all = Trainpkg("images -q");
  EXPECT_EQ(std::count(all.out.begin(), all.out.end(), '\n'), 3) << all.out;

  // No -f: asks, and a "no" (here: no input) removes nothing.
  Result asked = Trainpkg("images prune");
  EXPECT_EQ(asked.code, 0);
  EXPECT_THAT(asked.out, HasSubstr("Are you sure you want to continue? [y/N]"));
  EXPECT_THAT(Trainpkg("images --filter dangling=true").out, HasSubstr("<none>"));

  Result pruned = Trainpkg("images prune -f");
  ASSERT_EQ(pruned.code, 0) << pruned.out;
  EXPECT_THAT(pruned.out, HasSubstr("Deleted Images:\ndeleted: sha256:"));
  EXPECT_THAT(pruned.out, MatchesRegex("(.|\n)*Total reclaimed space: [0-9.]+k?B\n"));
  EXPECT_THAT(Trainpkg("images --filter dangling=true").out, Not(HasSubstr("<none>")));
  EXPECT_EQ(SkopeoCopy("docker.io/library/trainer:v1").code, 0);
  EXPECT_EQ(SkopeoCopy("docker.io/library/keep:v1").code, 0);

  Result everything = Trainpkg("images prune -a -f");
  ASSERT_EQ(everything.code, 0) << everything.out;
  EXPECT_THAT(everything.out, HasSubstr("untagged: docker.io/library/keep:v1\n"));
  EXPECT_THAT(everything.out, HasSubstr("untagged: docker.io/library/trainer:v1\n"));
  EXPECT_EQ(Trainpkg("images -q").out, "");
}

TEST_F(CliImagesTest, SystemPruneDropsCachesAndRootfsButNotWhatAnImageNeeds) {
  ASSERT_EQ(Build("gone:v1").code, 0);
  WriteContext("ctx2", "print('two')\n");
  ASSERT_EQ(Build("kept:v1", "ctx2").code, 0);
  ASSERT_EQ(Trainpkg("images rm gone:v1").code, 0);
  // The rootfs of the kept image (its ChainID, which for one layer is its
  // diff_id) stays; another (an image no longer stored) goes.
  nlohmann::json inspected = nlohmann::json::parse(Trainpkg("images inspect kept:v1").out);
  std::string diff_id = inspected[0]["Config"]["rootfs"]["diff_ids"][0];
  const fs::path kept_rootfs = home() / "rootfs" / ("sha256-" + diff_id.substr(7));
  const fs::path stale_rootfs = home() / "rootfs" / ("sha256-" + std::string(64, 'a'));
  fs::create_directories(kept_rootfs / "etc");
  fs::create_directories(stale_rootfs / "etc");
  std::ofstream(stale_rootfs / "etc/big") << std::string(5000, 'x');

  Result pruned = Trainpkg("system prune -f");
  ASSERT_EQ(pruned.code, 0) << pruned.out;
  EXPECT_THAT(pruned.out, HasSubstr("Deleted build cache objects: "));
  EXPECT_THAT(pruned.out, HasSubstr("deleted rootfs: sha256-aaaa"));
  EXPECT_THAT(pruned.out, HasSubstr("Total reclaimed space: "));
  EXPECT_FALSE(fs::exists(stale_rootfs));
  EXPECT_TRUE(fs::exists(kept_rootfs));
  EXPECT_TRUE(fs::is_empty(home() / "build-cache"));
  // Only the kept image's three blobs remain, and they are whole.
  EXPECT_EQ(BlobCount(), 3);
  EXPECT_EQ(SkopeoCopy("docker.io/library/kept:v1").code, 0);
  // The cache is gone: the layer is written again.
  Result rebuilt = Trainpkg("build -t kept:v1 " + ShellQuote((dir_ / "ctx2").string()));
  EXPECT_THAT(rebuilt.out, HasSubstr("1 layer(s) written, 0 cached"));
}

// Rootfs entries share files by hardlinks: a file two entries link is
// counted once, when its last link goes (it was counted per entry: 2 MB
// reported for 1 MB freed).
TEST_F(CliImagesTest, SystemPruneReportsTheBytesItFreesNotTheLinks) {
  const fs::path one = home() / "rootfs" / ("sha256-" + std::string(64, 'a'));
  const fs::path two = home() / "rootfs" / ("sha256-" + std::string(64, 'b'));
  fs::create_directories(one / "lib");
  fs::create_directories(two / "lib");
  std::ofstream(one / "lib/torch.so") << std::string(1000 * 1000, 'x');
  fs::create_hard_link(one / "lib/torch.so", two / "lib/torch.so");
  std::ofstream(two / "lib/own") << std::string(500 * 1000, 'y');

  Result pruned = Trainpkg("system prune -f");
  ASSERT_EQ(pruned.code, 0) << pruned.out;
  EXPECT_FALSE(fs::exists(one));
  EXPECT_FALSE(fs::exists(two));
  EXPECT_THAT(pruned.out, HasSubstr("Total reclaimed space: 1.5MB")) << pruned.out;
}

// Tags written at once by several processes all land (index.lock): without
// it, each read-modify-write of index.json could drop the others' tags.
TEST_F(CliImagesTest, ConcurrentTagsAllLand) {
  ASSERT_EQ(Build("trainer:v1").code, 0);
  std::string script;
  for (int i = 0; i < 16; ++i) {
    script += "TRAINPKG_HOME=" + ShellQuote(home().string()) +
              " " TRAINPKG_PATH " images tag trainer:v1 trainer:t" + std::to_string(i) + " & ";
  }
  Result tagged = trainpkg::testing::Sh(script + "wait");
  ASSERT_EQ(tagged.code, 0) << tagged.out;
  Result listed = Trainpkg("images --format json");
  EXPECT_EQ(std::count(listed.out.begin(), listed.out.end(), '\n'), 17) << listed.out;
}

// A prune that runs while a build writes its layers waits for the build
// (the store's gc.lock), so the built image is whole.
TEST_F(CliImagesTest, PruneDuringABuildLeavesTheBuiltImageWhole) {
  fs::create_directories(dir_ / "big/data");
  std::mt19937_64 random(7);
  for (int file = 0; file < 4; ++file) {
    std::string bytes(48 << 20, '\0');
    for (size_t i = 0; i + 8 <= bytes.size(); i += 8) {
      uint64_t value = random();
      std::memcpy(bytes.data() + i, &value, 8);
    }
    std::ofstream(dir_ / "big/data" / std::to_string(file), std::ios::binary) << bytes;
  }
  // Four layers: each one's blob sits in the store, untagged, while the
  // next ones are written.
  std::ofstream(dir_ / "big/Dockerfile") << "FROM scratch\nCOPY data/0 /0\nCOPY data/1 /1\n"
                                            "COPY data/2 /2\nCOPY data/3 /3\n";
  const std::string home_env = "TRAINPKG_HOME=" + ShellQuote(home().string());
  // The build in the background; `system prune` in a loop until it ends.
  Result raced = trainpkg::testing::Sh(
      home_env + " " TRAINPKG_PATH " build -q -t big:v1 " + ShellQuote((dir_ / "big").string()) +
      " >" + ShellQuote((dir_ / "build.out").string()) + " 2>&1 & pid=$!; prunes=0; " +
      "while kill -0 $pid 2>/dev/null; do " + home_env + " " TRAINPKG_PATH +
      " system prune -f >/dev/null 2>&1 || exit 9; prunes=$((prunes+1)); done; wait $pid; "
      "echo \"build=$? prunes=$prunes\"");
  ASSERT_EQ(raced.code, 0) << raced.out;
  EXPECT_THAT(raced.out, HasSubstr("build=0"))
      << trainpkg::base::ReadFile(dir_ / "build.out").value_or("");
  EXPECT_EQ(SkopeoCopy("docker.io/library/big:v1").code, 0) << raced.out;
}

TEST_F(CliImagesTest, BuildNoCacheIidfileAndProgress) {
  const std::string ctx = ShellQuote((dir_ / "ctx").string());
  ASSERT_EQ(Trainpkg("build -t trainer:v1 " + ctx).code, 0);
  Result cached = Trainpkg("build --progress=plain -t trainer:v1 " + ctx);
  ASSERT_EQ(cached.code, 0) << cached.out;
  EXPECT_THAT(cached.out, HasSubstr("0 layer(s) written, 1 cached"));
  const std::string iidfile = (dir_ / "iid").string();
  Result fresh =
      Trainpkg("build --no-cache --iidfile " + ShellQuote(iidfile) + " -t trainer:v1 " + ctx);
  ASSERT_EQ(fresh.code, 0) << fresh.out;
  EXPECT_THAT(fresh.out, HasSubstr("1 layer(s) written, 0 cached"));
  EXPECT_THAT(fresh.out, HasSubstr("[2/3] COPY trainer /app/trainer/ ("));
  EXPECT_THAT(fresh.out, Not(HasSubstr("(cached)")));
  // The ID alone, no newline, as docker writes it; the same as inspect's Id.
  std::string iid = trainpkg::base::ReadFile(iidfile).value_or("");
  EXPECT_THAT(iid, MatchesRegex("sha256:[0-9a-f]{64}"));
  EXPECT_EQ(nlohmann::json::parse(Trainpkg("images inspect trainer:v1").out)[0]["Id"], iid);
  EXPECT_THAT(fresh.out, HasSubstr("image id " + iid));
  // --no-cache still recorded the layer.
  EXPECT_THAT(Trainpkg("build -t trainer:v1 " + ctx).out,
              HasSubstr("0 layer(s) written, 1 cached"));

  Result quiet = Trainpkg("build --progress=quiet -t trainer:v1 " + ctx);
  EXPECT_THAT(quiet.out, MatchesRegex("sha256:[0-9a-f]{64}\n"));
  Result bad = Trainpkg("build --progress=fancy " + ctx);
  EXPECT_EQ(bad.code, 2);
  EXPECT_THAT(bad.out, HasSubstr("--progress"));
  // Under a regular file: cannot be written.
  const std::string bad_path = (dir_ / "ctx/Dockerfile/iid").string();
  Result bad_iid = Trainpkg("build --iidfile " + ShellQuote(bad_path) + " " + ctx);
  EXPECT_EQ(bad_iid.code, 1);
  EXPECT_THAT(bad_iid.out, HasSubstr("--iidfile " + bad_path + ": "));
}

TEST_F(CliImagesTest, PushQuietPrintsOnlyTheReferenceAndDigest) {
  trainpkg::registry::testing::RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  ASSERT_EQ(Build("trainer:v1").code, 0);
  const std::string ref = server.host() + "/team/trainer:v1";
  ASSERT_EQ(Trainpkg("images tag trainer:v1 " + ref).code, 0);
  // After a system prune the remaining image still pushes whole.
  ASSERT_EQ(Trainpkg("system prune -f").code, 0);
  Result push = trainpkg::testing::Sh("TRAINPKG_HOME=" + ShellQuote(home().string()) +
                                      " " TRAINPKG_PATH " push -q " + ref + " 2>/dev/null");
  ASSERT_EQ(push.code, 0) << push.out;
  EXPECT_THAT(push.out, MatchesRegex(ref + "@sha256:[0-9a-f]{64}\n"));
  Result pulled =
      trainpkg::testing::Sh("skopeo copy -q --src-tls-verify=false docker://" + ref +
                            " oci:" + ShellQuote((dir_ / "pulled").string()) + ":x 2>&1");
  EXPECT_EQ(pulled.code, 0) << pulled.out;
}

// --pull: a registry FROM is resolved from the registry on every build, so a
// tag moved to another image is followed (the store never answers for it).
TEST_F(CliImagesTest, BuildPullFollowsATagMovedInTheRegistry) {
  trainpkg::registry::testing::RegistryServer server;
  ASSERT_THAT(server.Start({}), IsOk());
  const std::string base = server.host() + "/base:v1";
  for (int version = 1; version <= 2; ++version) {
    // The base: a one-layer image built to a layout, pushed to the tag.
    const std::string name = "base" + std::to_string(version);
    WriteContext(name, "print(" + std::to_string(version) + ")\n");
    const std::string src = "oci:" + (dir_ / (name + "-layout")).string() + ":v1";
    Result base_built =
        Trainpkg("build -q --output " + ShellQuote(src) + " " + ShellQuote((dir_ / name).string()));
    ASSERT_EQ(base_built.code, 0) << base_built.out;
    Result pushed = Trainpkg("push -q " + ShellQuote(src) + " " + base);
    ASSERT_EQ(pushed.code, 0) << pushed.out;
    auto read = trainpkg::oci::Layout::Open(dir_ / (name + "-layout"));
    ASSERT_THAT(read, IsOk());
    auto image = read->ReadImage("v1");
    ASSERT_THAT(image, IsOk());
    const std::string base_layer = image->manifest.layers[0].digest.ToString();
    std::ofstream(dir_ / "ctx/Dockerfile") << "FROM " << base << "\nCOPY trainer /app/trainer/\n";
    Result built = Build("app:v1", "ctx", "--pull");
    ASSERT_EQ(built.code, 0) << built.out;
    nlohmann::json inspected = nlohmann::json::parse(Trainpkg("images inspect app:v1").out);
    EXPECT_EQ(inspected[0]["Manifest"]["layers"][0]["digest"], base_layer) << "build " << version;
  }
}

}  // namespace
