#include "datasets/text_corpus.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace fb::datasets {

int CharToId(unsigned char c) {
  if (c == '\n') return 0;
  if (c >= 32 && c <= 126) return c - 31;
  return kTextVocabSize - 1;
}

char IdToChar(int id) {
  if (id == 0) return '\n';
  if (id >= 1 && id <= 95) return static_cast<char>(id + 31);
  return '?';
}

namespace {
bool IsTextFile(const std::filesystem::directory_entry& e) {
  if (e.is_symlink() || !e.is_regular_file()) return false;
  const std::string ext = e.path().extension().string();
  return ext != ".dat" && ext != ".u8";
}

void AppendIds(const std::string& text, std::vector<int32_t>* out) {
  for (unsigned char c : text) out->push_back(CharToId(c));
}
}  // namespace

StatusOr<TextCorpus> ReadTextCorpus(const std::string& dir, double heldout_fraction) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec))
    return InvalidArgument("text corpus '", dir, "' is a file, expected a directory of text files");
  if (!fs::is_directory(dir, ec))
    return NotFound("text corpus directory '", dir, "' not found (apt-get install fortunes)");
  std::vector<fs::path> paths;
  for (const auto& e : fs::directory_iterator(dir, ec))
    if (IsTextFile(e)) paths.push_back(e.path());
  std::sort(paths.begin(), paths.end());
  TextCorpus corpus;
  for (const fs::path& p : paths) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return NotFound("cannot read '", p.string(), "'");
    std::ostringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    const size_t split = text.size() - static_cast<size_t>(text.size() * heldout_fraction);
    AppendIds(text.substr(0, split), &corpus.train);
    AppendIds(text.substr(split), &corpus.heldout);
    corpus.files.push_back(p.string());
  }
  if (paths.empty()) return NotFound("text corpus directory '", dir, "' has no text files");
  if (corpus.train.empty() || corpus.heldout.empty())
    return InvalidArgument("text corpus directory '", dir, "' holds ",
                           corpus.train.size() + corpus.heldout.size(), " characters in ",
                           paths.size(), " files, too few for a training and a held-out part");
  return corpus;
}

double UnigramPerplexity(const std::vector<int32_t>& train, const std::vector<int32_t>& heldout,
                         int vocab_size) {
  std::vector<double> counts(vocab_size, 1.0);  // add-one smoothing
  for (int32_t id : train) counts[id] += 1;
  const double total = static_cast<double>(train.size()) + vocab_size;
  double nll = 0;
  for (int32_t id : heldout) nll -= std::log(counts[id] / total);
  return std::exp(nll / static_cast<double>(heldout.size()));
}

}  // namespace fb::datasets
