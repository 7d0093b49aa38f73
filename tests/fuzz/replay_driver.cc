// Runs LLVMFuzzerTestOneInput without libFuzzer (g++ builds, CI): replays
// every file of a seed corpus, then mutates corpus entries with a
// deterministic PRNG (bit flips, the target's dictionary tokens, erasures,
// duplications, splices) until the iteration or time budget is spent.
//   fuzz_<target>_replay CORPUS_DIR DICT MAX_LEN [SECONDS=5] [ITERATIONS=20000] [SEED=1]
// DICT is the libFuzzer dictionary the clang build passes as -dict (one
// "token" per line; \\, \" and \xAB escapes; # comments), MAX_LEN the size
// mutated inputs are cut to (libFuzzer's -max_len).
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The token of one dictionary line `[name=]"token"`, or nullopt for a
// blank or comment line. Exits on a malformed line, naming it.
std::optional<std::string> ParseDictLine(const std::string& line, int number) {
  size_t first = line.find_first_not_of(" \t\r");
  if (first == std::string::npos || line[first] == '#') return std::nullopt;
  size_t open = line.find('"');
  size_t close = line.find_last_of('"');
  if (open == std::string::npos || close == open) {
    std::fprintf(stderr, "dictionary line %d: expected \"token\": %s\n", number, line.c_str());
    std::exit(2);
  }
  std::string token;
  for (size_t i = open + 1; i < close; ++i) {
    if (line[i] != '\\') {
      token += line[i];
    } else if (i + 1 < close && (line[i + 1] == '\\' || line[i + 1] == '"')) {
      token += line[++i];
    } else if (i + 3 < close && line[i + 1] == 'x' && HexValue(line[i + 2]) >= 0 &&
               HexValue(line[i + 3]) >= 0) {
      token += static_cast<char>(HexValue(line[i + 2]) * 16 + HexValue(line[i + 3]));
      i += 3;
    } else {
      std::fprintf(stderr, "dictionary line %d: bad escape: %s\n", number, line.c_str());
      std::exit(2);
    }
  }
  return token;
}

std::vector<std::string> ReadDictionary(const char* path) {
  std::ifstream in(path);
  if (!in) {
    std::fprintf(stderr, "cannot read dictionary %s\n", path);
    std::exit(2);
  }
  std::vector<std::string> tokens;
  std::string line;
  for (int number = 1; std::getline(in, line); ++number) {
    if (std::optional<std::string> token = ParseDictLine(line, number)) tokens.push_back(*token);
  }
  if (tokens.empty()) {
    std::fprintf(stderr, "dictionary %s has no tokens\n", path);
    std::exit(2);
  }
  return tokens;
}

std::string Mutate(std::string s, const std::vector<std::string>& corpus,
                   const std::vector<std::string>& dictionary, size_t max_len,
                   std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? 0 : static_cast<size_t>(rng() % n); };
  int rounds = 1 + static_cast<int>(pick(4));
  for (int r = 0; r < rounds; ++r) {
    switch (pick(6)) {
      case 0:  // flip a bit
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << pick(8));
        break;
      case 1:  // insert a token
        s.insert(pick(s.size() + 1), dictionary[pick(dictionary.size())]);
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
  if (s.size() > max_len) s.resize(max_len);
  return s;
}

void Run(const std::string& s) {
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(s.data()), s.size());
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s CORPUS_DIR DICT MAX_LEN [SECONDS] [ITERATIONS] [SEED]\n",
                 argv[0]);
    return 2;
  }
  const std::vector<std::string> dictionary = ReadDictionary(argv[2]);
  const size_t max_len = std::strtoull(argv[3], nullptr, 10);
  const double seconds = argc > 4 ? std::atof(argv[4]) : 5.0;
  const long iterations = argc > 5 ? std::atol(argv[5]) : 20000;
  const uint64_t seed = argc > 6 ? std::strtoull(argv[6], nullptr, 10) : 1;

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
    if (done % 16 == 0 && std::chrono::steady_clock::now() >= deadline) break;
    Run(Mutate(corpus[done % corpus.size()], corpus, dictionary, max_len, rng));
  }
  std::printf("replayed %zu seeds and %ld mutations (seed %llu)\n", corpus.size(), done,
              static_cast<unsigned long long>(seed));
  return 0;
}
