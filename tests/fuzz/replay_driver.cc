// Runs LLVMFuzzerTestOneInput without libFuzzer (g++ builds, CI): replays
// every file of a seed corpus, then mutates corpus entries with a
// deterministic PRNG (bit flips, the target's dictionary tokens, erasures,
// duplications, splices) until the iteration or time budget is spent.
//   fuzz_<target>_replay CORPUS_DIR [SECONDS=20] [ITERATIONS=1000000] [SEED=1]
// The target's replay binary links one Dictionary() (fuzz_dictionary.h).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_dictionary.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string Mutate(std::string s, const std::vector<std::string>& corpus, std::mt19937_64& rng) {
  const trainpkg::fuzz::FuzzDictionary& dictionary = trainpkg::fuzz::Dictionary();
  auto pick = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  int rounds = 1 + static_cast<int>(pick(4));
  for (int r = 0; r < rounds; ++r) {
    switch (pick(6)) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
        break;
      case 1:  // insert a token
        s.insert(pick(s.size() + 1), dictionary.tokens[pick(dictionary.tokens.size())]);
        break;
      case 2:  // erase a range
        if (!s.empty()) s.erase(pick(s.size()), 1 + pick(16));
        break;
      case 3:  // duplicate a range
        if (!s.empty()) {
          size_t at = pick(s.size());
          s.insert(pick(s.size()), s.substr(at, 1 + pick(32)));
        }
        break;
      case 4: {  // splice another entry
        const std::string& o = corpus[pick(corpus.size())];
        s = s.substr(0, pick(s.size() + 1)) + o.substr(pick(o.size() + 1));
        break;
      }
      default:  // random byte
        s.insert(pick(s.size() + 1), 1, static_cast<char>(rng()));
    }
  }
  if (s.size() > dictionary.max_input) s.resize(dictionary.max_input);
  return s;
}

void Run(const std::string& s) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR [SECONDS] [ITERATIONS] [SEED]\n", argv[0]);
    return 2;
  }
  const double seconds = argc > 2 ? std::atof(argv[2]) : 20.0;
  const long iterations = argc > 3 ? std::atol(argv[3]) : 1000000;
  const uint64_t seed = argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 1;

  std::vector<std::string> corpus;
  std::vector<std::filesystem::path> files;
  for (const auto& e : std::filesystem::directory_iterator(argv[1])) files.push_back(e.path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    std::ifstream in(f, std::ios::binary);
    std::ostringstream buf;
    buf << in.rdbuf();
    corpus.push_back(buf.str());
    Run(corpus.back());
  }
  if (corpus.empty()) {
    std::fprintf(stderr, "no seed files in %s\n", argv[1]);
    return 2;
  }
  std::mt19937_64 rng(seed);
  const auto deadline = std::chrono::steady_clock::now() +
                        std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                            std::chrono::duration<double>(seconds));
  long done = 0;
  for (; done < iterations; ++done) {
    if (done % 256 == 0 && std::chrono::steady_clock::now() >= deadline) break;
    Run(Mutate(corpus[done % corpus.size()], corpus, rng));
  }
  std::printf("replayed %zu seeds and %ld mutations (seed %llu)\n", corpus.size(), done,
              static_cast<unsigned long long>(seed));
  return 0;
}
