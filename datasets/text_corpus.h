#pragma once
// A character-level text corpus for language models (issue 8; the whitepaper's LSTM language
// model, sections 6-7): every plain-text file of a directory (such as Debian's fortunes package,
// /usr/share/games/fortunes), bytes mapped to token ids, split into training and held-out text.
#include <cstdint>
#include <string>
#include <vector>

#include "engine/framework/status.h"

namespace fb::datasets {

// Token ids: 0 = '\n', 1..95 = printable ASCII ' '..'~', 96 = any other byte.
inline constexpr int kTextVocabSize = 97;
int CharToId(unsigned char c);
char IdToChar(int id);  // '?' for the "other" id

struct TextCorpus {
  std::vector<int32_t> train, heldout;  // token ids
  std::vector<std::string> files;       // the files read, in order
};

// Reads every regular file in `dir` except fortune index files (*.dat) and links (*.u8); the last
// `heldout_fraction` of each file goes to held-out, the rest to training. NotFound naming `dir`
// when it is missing or has no text (install it: apt-get install fortunes).
StatusOr<TextCorpus> ReadTextCorpus(const std::string& dir, double heldout_fraction = 0.1);

// Perplexity of `heldout` under the add-one-smoothed character frequencies of `train`: the
// unigram baseline a language model must beat.
double UnigramPerplexity(const std::vector<int32_t>& train, const std::vector<int32_t>& heldout,
                         int vocab_size = kTextVocabSize);

}  // namespace fb::datasets
