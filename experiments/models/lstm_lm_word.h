#pragma once
// The word-level LSTM language model of OSDI 2016 section 6.4 (Fig 9): LSTM-512-512 of
// Jozefowicz et al. 2016 ("Exploring the Limits of Language Modeling") on a vocabulary restricted
// to the 40,000 most frequent words, trained with a full softmax or a sampled softmax (the true
// class and 512 sampled classes per step). Registered in the model registry
// (experiments/models/models.h) as
//   lstm_lm_word                   options.word_lm decides (default: WhileLoop, full softmax,
//                                  the fused LSTMBlockCell)
//   lstm_lm_word_unrolled          forces word_lm.unroll = true (the simulator and the placers
//                                  analyse graphs without loops)
//   lstm_lm_word_sampled           forces word_lm.softmax = "sampled"
//   lstm_lm_word_basic             forces word_lm.cell = "basic" (the cell as basic ops)
//
// Graph (B = batch_size, T = num_steps, V = vocab_size, E/C/P = embedding/cells/projection):
//   input/images   int32 [B, T] token ids (Placeholder), input/labels int32 [B, T] the next ids
//   embedding      Gather(embedding/weights [V, E], transpose(ids)) -> [T, B, E]
//   lstm           one LSTMP layer (experiments/models/lstm_cell.h; the fused LSTMBlockCell or
//                  basic ops, word_lm.cell): W lstm/weights [E + P, 4C] (icfo gate columns),
//                  lstm/biases [4C], lstm/projection [C, P], forget bias 1, zero initial state;
//                  T steps either as one WhileLoop (whitepaper 4.4: the outputs are gathered in
//                  a [T, B, P] loop variable, out += onehot(t) * r_t) or unrolled (T cell copies,
//                  Pack), -> outputs [B * T, P] in batch-major order (row b * T + t)
//   logits         outputs softmax/weights^T + softmax/biases, softmax/weights [V, P] -> [B*T, V]
//   loss           mean over the B*T tokens of the cross-entropy: full softmax over the logits,
//                  or ops::SampledSoftmaxLoss (log-uniform candidates, accidental hits removed,
//                  log Q subtracted; seed = options.seed)
//   accuracy, num_correct  over the B*T tokens, from the full logits (evaluation only)
// Parameters at the defaults: LSTM 2,361,344 ((512 + 512) * 2048 + 2048 + 512 * 512, the "2.4 M"
// of Shazeer et al. 2017, Table 7), embedding 20,480,000, softmax 20,520,000 (W and bias), total
// 43,361,344. The weight gradients are dense (no IndexedSlices): the embedding and softmax
// gradients are [V, E] and [V, P] tensors even with sampled softmax. Weights are Glorot
// uniform (fans: embedding V and E, LSTM E + P and 4C, projection C and P, softmax P and V),
// biases zero. Model::examples_per_step = B * T words.
//
// num_steps defaults to 20, the unroll length of the reference code (rafaljozefowicz/lm); the
// OSDI run's unroll length is not published.
#include "experiments/models/models.h"

namespace fb::experiments {

// The model body (a ModelBodyFn): validates options.word_lm and options.batch_size, builds the
// graph above in `root` and returns the loss. Errors: InvalidArgument naming the field
// ("word_lm.num_sampled must be in [1, word_lm.vocab_size = 50], got 64"), when options.dataset is
// set (token ids are fed), or for an unknown softmax; graph-building errors naming the node.
StatusOr<Output> BuildWordLm(const Scope& root, const ModelOptions& options, VariableStore* vars,
                             Model* m);

}  // namespace fb::experiments
