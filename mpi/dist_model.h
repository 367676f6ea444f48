#pragma once
// What `flowbench dist-train` trains (mpi/dist_train.h): a model's data-parallel functions
// (ModelFns, data_parallel.h), the examples each replica is fed per step, and the held-out
// evaluation after training. Models:
//   linear  LinearRegression (linear_model.h) on its synthetic data; evaluation: mean squared
//           error on 1,024 held-out rows, computed from the trained W and b.
//   lenet, mlp  the image classifiers of experiments/models/models.h on Fashion-MNIST
//           (/usr/share/datasets/fashion-mnist), SGD; the Variables are created once (on the
//           parameter servers) with the names and initial values of a single-process model of
//           the same seed; each replica builds its own forward pass reading them. Step s gives
//           shard k of S the examples [(s * S + k) * b, +b) of the training set (wrapping at the
//           epoch end). Evaluation: mean cross-entropy and accuracy of replica 0's forward pass
//           on the first 2,000 test images.
//   lstm_lm_word, lstm_lm_word_sampled  the word LSTM language model of OSDI 6.4 on synthetic
//           token streams (word_lm_dist_model.h).
//   other registered image models (alexnet, inception_v3, resnet50, ...) on synthetic data;
//           batch normalization's moving statistics are Variables on the parameter servers too,
//           updated by every replica's training step (ModelVariables::non_trainable).
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mpi/data_parallel.h"
#include "mpi/variable_checkpointer.h"
#include "mpi/word_lm_dist_model.h"

namespace fb::mpi {

using Feeds = std::vector<std::pair<std::string, Tensor>>;

class DistModel {
 public:
  virtual ~DistModel() = default;
  virtual ModelFns Fns() const = 0;
  // Feeds of graph replica `replica` ("replica_<i>/..."): shard `shard` of `shards`, `batch`
  // examples each, of step `step`.
  virtual Feeds ReplicaFeeds(int replica, int64_t step, int shard, int shards, int batch) const = 0;
  // Held-out metrics of the trained model ("loss", and "accuracy" for classifiers). `run` runs
  // the training graph; fetching `variable_values` gives the Variables' values, in
  // Fns().variables order (VariableCheckpointer::ReadNames).
  virtual StatusOr<std::map<std::string, double>> Evaluate(
      const RunFn& run, const std::vector<std::string>& variable_values) const = 0;
};

// `name` is linear, lenet, mlp (Fashion-MNIST), lstm_lm_word or lstm_lm_word_sampled (sizes from
// `word_lm`, word_lm_dist_model.h) or another image model registered with FB_REGISTER_MODEL (e.g.
// alexnet: its registered input shape and class count, on synthetic data of
// max(kSyntheticTrainExamples, batch) training and kSyntheticTestExamples held-out examples);
// InvalidArgument naming `name` otherwise. `features` is linear's input width, `seed` the
// models' initialisation and the synthetic data's, `batch` the examples per replica and step
// (InvalidArgument naming --batch when Fashion-MNIST has fewer, or when the synthetic data would
// exceed kMaxSyntheticBytes). Errors of loading Fashion-MNIST name the file.
inline constexpr int64_t kSyntheticTrainExamples = 64;
inline constexpr int64_t kSyntheticTestExamples = 8;
// A synthetic training set larger than this (bytes per rank) is refused (InvalidArgument naming
// --batch): AlexNet's 227x227x3 floats are 618 KB an example.
inline constexpr int64_t kMaxSyntheticBytes = int64_t{2} << 30;
StatusOr<std::unique_ptr<DistModel>> MakeDistModel(const std::string& name, int features,
                                                   int64_t seed, int64_t batch = 1,
                                                   const WordLmDistOptions& word_lm = {});

}  // namespace fb::mpi
