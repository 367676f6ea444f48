// Text corpus reader (issue 8): token ids, file selection, held-out split, unigram baseline.
#include <cmath>
#include <filesystem>
#include <fstream>

#include "datasets/text_corpus.h"
#include "tests/test_util.h"

namespace fb::datasets {
namespace {

struct TempDir {
  std::filesystem::path path;
  TempDir() {
    path = std::filesystem::temp_directory_path() /
           ("fb_corpus_" + std::to_string(reinterpret_cast<uintptr_t>(this)));
    std::filesystem::create_directories(path);
  }
  ~TempDir() { std::filesystem::remove_all(path); }
  void Write(const std::string& name, const std::string& text) const {
    std::ofstream(path / name, std::ios::binary) << text;
  }
};

TEST_CASE("Characters map to ids and back", "[datasets]") {
  CHECK(CharToId('\n') == 0);
  CHECK(CharToId(' ') == 1);
  CHECK(CharToId('~') == 95);
  CHECK(CharToId(0xC3) == kTextVocabSize - 1);
  for (char c : std::string("Hello, world!\n")) CHECK(IdToChar(CharToId(c)) == c);
}

TEST_CASE("ReadTextCorpus splits every text file and skips fortune indexes", "[datasets]") {
  TempDir dir;
  dir.Write("a", "abcdefghij");  // 10 chars: 9 train, 1 held-out at 10%
  dir.Write("a.dat", "binary index");
  dir.Write("b", "0123456789");
  auto c = ReadTextCorpus(dir.path.string(), 0.1);
  INFO(c.status().ToString());
  REQUIRE(c.ok());
  CHECK(c->files.size() == 2);
  CHECK(c->train.size() == 18);
  REQUIRE(c->heldout.size() == 2);
  CHECK(IdToChar(c->heldout[0]) == 'j');
  CHECK(IdToChar(c->heldout[1]) == '9');
}

TEST_CASE("ReadTextCorpus names a missing directory", "[datasets]") {
  auto c = ReadTextCorpus("/nonexistent/fortunes");
  REQUIRE_FALSE(c.ok());
  CHECK_THAT(c.status().message(), Catch::Contains("/nonexistent/fortunes"));
}

// A file given as --corpus was "directory not found (apt-get install fortunes)"; a corpus too
// short for a held-out part was "has no text files".
TEST_CASE("ReadTextCorpus names a file given as the directory and a corpus too short",
          "[datasets][errors]") {
  TempDir dir;
  dir.Write("a", "hello");  // 5 characters: none held out at 10%
  const std::string file = (dir.path / "a").string();
  auto f = ReadTextCorpus(file, 0.1);
  REQUIRE_FALSE(f.ok());
  CHECK(f.status().code() == Code::kInvalidArgument);
  CHECK_THAT(f.status().message(),
             Catch::Contains("text corpus '" + file + "' is a file, expected a directory"));
  auto short_corpus = ReadTextCorpus(dir.path.string(), 0.1);
  REQUIRE_FALSE(short_corpus.ok());
  CHECK_THAT(short_corpus.status().message(),
             Catch::Contains("holds 5 characters in 1 files, too few for a training and a "
                             "held-out part"));
  TempDir empty;
  CHECK_THAT(ReadTextCorpus(empty.path.string(), 0.1).status().message(),
             Catch::Contains("has no text files"));
}

TEST_CASE("Unigram perplexity by hand", "[datasets]") {
  // train: two 'a' (id 66), vocab 2 after smoothing over ids {0, 1}: p(0) = 3/4, p(1) = 1/4.
  std::vector<int32_t> train{0, 0}, heldout{0, 1};
  double expected = std::exp(-(std::log(0.75) + std::log(0.25)) / 2);
  CHECK(UnigramPerplexity(train, heldout, 2) == Approx(expected));
}

}  // namespace
}  // namespace fb::datasets
