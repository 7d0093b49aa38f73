// Measures layer writing on 64 MiB of mixed input (half real text, half
// random) against gzip and pigz on the same tar, and prints the table to the
// test log. No timing assertions: the numbers depend on the machine and load;
// the only checks are that every output has the same content.
#include <chrono>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>

#include "fmt/format.h"
#include "gtest/gtest.h"
#include "packager/layer/layer_writer.h"
#include "tests/packager/layer/layer_test_util.h"
#include "tests/test_util/status_matchers.h"

using ::trainpkg::testing::IsOk;

namespace trainpkg::packager {
namespace {

namespace fs = std::filesystem;
using testing::RunShell;
using testing::TempDir;

constexpr size_t kFileSize = size_t{4} << 20;
constexpr int kFilesPerKind = 8;  // 8 text + 8 random files of 4 MiB = 64 MiB

// Real text: the system's C headers, concatenated and repeated as needed.
std::string TextCorpus(size_t size) {
  std::string text;
  std::error_code ec;
  for (fs::recursive_directory_iterator it("/usr/include", ec), end; !ec && it != end;
       it.increment(ec)) {
    if (it->path().extension() != ".h" || !it->is_regular_file()) continue;
    std::ifstream in(it->path(), std::ios::binary);
    text.append(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    if (text.size() >= size) break;
  }
  if (text.empty()) text = "no headers found; plain repeated text stands in\n";
  while (text.size() < size) text += text.substr(0, size - text.size());
  text.resize(size);
  return text;
}

class CountingSink final : public oci::ByteSink {
 public:
  absl::Status Write(std::string_view data) override {
    bytes += static_cast<int64_t>(data.size());
    return absl::OkStatus();
  }
  int64_t bytes = 0;
};

double Seconds(const std::function<void()>& fn) {
  const auto start = std::chrono::steady_clock::now();
  fn();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

TEST(LayerThroughputTest, SixtyFourMiBMixedAgainstGzipAndPigz) {
  TempDir dir;
  const fs::path tree = dir.path() / "tree";
  const std::string text = TextCorpus(kFileSize * kFilesPerKind);
  std::mt19937_64 rng(7);
  for (int i = 0; i < kFilesPerKind; ++i) {
    testing::WriteFile(
        tree / fmt::format("text/{}.txt", i),
        std::string_view(text).substr(static_cast<size_t>(i) * kFileSize, kFileSize));
    std::string random(kFileSize, '\0');
    for (size_t j = 0; j < kFileSize; j += 8) {
      const uint64_t v = rng();
      std::memcpy(random.data() + j, &v, 8);
    }
    testing::WriteFile(tree / fmt::format("random/{}.bin", i), random);
  }
  const LayerSource source = LayerSource::DirectoryTree(tree);

  // The plain tar, for the external compressors and the content check.
  const fs::path tar_path = dir.path() / "layer.tar";
  absl::StatusOr<LayerResult> plain;
  {
    testing::StringSink tar;
    LayerOptions uncompressed;
    uncompressed.compression = LayerCompression::kNone;
    plain = WriteLayer(source, uncompressed, &tar);
    ASSERT_THAT(plain, IsOk());
    std::ofstream(tar_path, std::ios::binary)
        .write(tar.bytes.data(), static_cast<std::streamsize>(tar.bytes.size()));
  }
  const double mb = static_cast<double>(plain->uncompressed_size) / 1e6;
  std::string table = fmt::format("\n{} MB tar (half text, half random)\n", mb);
  table += fmt::format("{:<34} {:>8} {:>9} {:>8}\n", "compressor", "seconds", "MB/s", "ratio");
  auto row = [&](const std::string& name, double seconds, int64_t out_bytes) {
    table += fmt::format("{:<34} {:>8.3f} {:>9.1f} {:>8.3f}\n", name, seconds, mb / seconds,
                         static_cast<double>(out_bytes) / (mb * 1e6));
  };

  for (int level : {1, 6}) {
    for (int threads : {1, 2}) {
      CountingSink sink;
      absl::StatusOr<LayerResult> r;
      LayerOptions options;
      options.gzip_level = level;
      options.threads = threads;
      const double s = Seconds([&] { r = WriteLayer(source, options, &sink); });
      ASSERT_THAT(r, IsOk());
      EXPECT_EQ(r->diff_id.ToString(), plain->diff_id.ToString());
      row(fmt::format("trainpkg libdeflate -{} ({} thr)", level, threads), s, r->size);
    }
  }
  int rc = 0;
  const bool have_pigz = (RunShell("command -v pigz", &rc), rc == 0);
  for (const char* tool : {"pigz -p2", "gzip"}) {
    if (std::string(tool).starts_with("pigz") && !have_pigz) {
      table += "pigz: not installed (scripts/install-deps.sh installs it)\n";
      continue;
    }
    for (int level : {1, 6}) {
      const std::string cmd = fmt::format("{} -{} -c {} | wc -c", tool, level, tar_path.string());
      std::string out;
      const double s = Seconds([&] { out = RunShell(cmd, &rc); });
      ASSERT_EQ(rc, 0) << cmd;
      row(fmt::format("{} -{}", tool, level), s, std::stoll(out));
    }
  }
  std::printf("%s", table.c_str());
}

}  // namespace
}  // namespace trainpkg::packager
