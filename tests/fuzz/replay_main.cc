// The main of a fuzz target in the normal build (gcc, no libFuzzer): runs
// LLVMFuzzerTestOneInput on every file named (directories: every file under them), then on
// `--mutations N` inputs made from those files by random byte edits (bit flips, boundary
// bytes, truncation, deleted, repeated and inserted spans, splices of two files), from a fixed
// `--seed`. No coverage guidance: it keeps the targets building and replays the corpus plus a
// cheap shake in `make test` (tests/fuzz/replay.sh); the real fuzzing is libFuzzer's
// (tests/fuzz/run_fuzzers.sh). An input that crashes is written to `fuzz-crash-input` first.
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size);

namespace {

std::string ReadFile(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

void Run(const std::string& input) {
  {
    // The input about to run, so a crash leaves it behind for a reproduction.
    std::ofstream out("fuzz-crash-input", std::ios::binary | std::ios::trunc);
    out << input;
  }
  LLVMFuzzerTestOneInput(reinterpret_cast<const uint8_t*>(input.data()), input.size());
}

std::string Mutate(const std::vector<std::string>& corpus, std::mt19937_64& rng) {
  auto pick = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % n); };
  std::string s = corpus[pick(corpus.size())];
  const int edits = 1 + static_cast<int>(rng() % 4);
  for (int e = 0; e < edits; e++) {
    switch (rng() % 7) {
      case 0:
        if (!s.empty()) s[pick(s.size())] ^= static_cast<char>(1u << (rng() % 8));
        break;
      case 1: {
        static const unsigned char kBoundary[] = {0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff};
        if (!s.empty()) s[pick(s.size())] = static_cast<char>(kBoundary[rng() % 6]);
        break;
      }
      case 2:
        s.resize(pick(s.size() + 1));
        break;
      case 3: {
        const size_t at = pick(s.size() + 1), n = pick(std::min<size_t>(s.size() - at, 64) + 1);
        s.erase(at, n);
        break;
      }
      case 4: {
        const size_t at = pick(s.size() + 1), n = pick(std::min<size_t>(s.size() - at, 64) + 1);
        s.insert(at, s.substr(at, n));
        break;
      }
      case 5: {
        std::string bytes(1 + pick(8), '\0');
        for (char& c : bytes) c = static_cast<char>(rng());
        s.insert(pick(s.size() + 1), bytes);
        break;
      }
      default: {
        const std::string& other = corpus[pick(corpus.size())];
        s = s.substr(0, pick(s.size() + 1)) + other.substr(pick(other.size() + 1));
        break;
      }
    }
  }
  return s;
}

}  // namespace

int main(int argc, char** argv) {
  long mutations = 0;
  unsigned long long seed = 1;
  std::vector<std::string> corpus;
  for (int i = 1; i < argc; i++) {
    std::string a = argv[i];
    if (a == "--mutations" && i + 1 < argc) {
      mutations = std::atol(argv[++i]);
    } else if (a == "--seed" && i + 1 < argc) {
      seed = std::strtoull(argv[++i], nullptr, 10);
    } else if (std::filesystem::is_directory(a)) {
      std::vector<std::filesystem::path> files;
      for (const auto& e : std::filesystem::recursive_directory_iterator(a)) {
        if (e.is_regular_file()) files.push_back(e.path());
      }
      std::sort(files.begin(), files.end());
      for (const auto& f : files) corpus.push_back(ReadFile(f));
    } else {
      corpus.push_back(ReadFile(a));
    }
  }
  for (const auto& input : corpus) Run(input);
  if (corpus.empty()) corpus.push_back("");
  std::mt19937_64 rng(seed);
  for (long i = 0; i < mutations; i++) Run(Mutate(corpus, rng));
  std::remove("fuzz-crash-input");
  std::printf("%zu corpus inputs and %ld mutations ran\n", corpus.size(), mutations);
  return 0;
}
