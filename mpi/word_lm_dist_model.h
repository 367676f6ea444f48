#pragma once
// The word LSTM language model of OSDI 2016 section 6.4 (experiments/models/lstm_lm_word.h,
// LSTM-512-512) as a `flowbench dist-train` model: "lstm_lm_word" (full softmax) and
// "lstm_lm_word_sampled" (sampled softmax, 512 candidates or the vocabulary, whichever is
// smaller). Every replica builds the unrolled model (so that `flowbench sim` can replay the
// exported step) reading the Variables created once on the parameter servers, round-robin as
// tf.train.replica_device_setter without a partitioner (whole Variables: the embedding and the
// softmax weights are not sharded, and the softmax is computed on the worker).
//
// Input: synthetic token streams (the One Billion Word corpus is not on this machine). Row b of
// shard k of step s is T + 1 tokens drawn from the log-uniform (Zipf-like) distribution over
// [0, V) that the sampled softmax assumes, from a counter-based hash of (seed, s, k, b, t); the
// ids are tokens 0..T-1 and the labels tokens 1..T. Evaluation: replica 0's mean cross-entropy
// (with the sampled softmax: the sampled loss) on one held-out batch of the same distribution.
#include <cstdint>
#include <memory>
#include <string>

#include "engine/framework/status.h"

namespace fb::mpi {

class DistModel;

struct WordLmDistOptions {
  int64_t vocab_size = 40000;  // V (the paper's restriction of the One Billion Word vocabulary)
  int64_t num_steps = 20;      // T: unroll length, words per example
  int64_t batch_size = 32;     // B: examples per replica per step (the Placeholders are [B, T])
};

// True for the names MakeWordLmDistModel accepts.
bool IsWordLmDistModel(const std::string& name);

// `name` is "lstm_lm_word" or "lstm_lm_word_sampled". InvalidArgument naming the model for
// another name, and the model's own option errors (naming the field, e.g. word_lm.vocab_size)
// for sizes out of range; `seed` initialises the weights and the synthetic tokens.
StatusOr<std::unique_ptr<DistModel>> MakeWordLmDistModel(const std::string& name,
                                                         const WordLmDistOptions& options,
                                                         int64_t seed);

}  // namespace fb::mpi
