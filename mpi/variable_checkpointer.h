#pragma once
// Checkpoints of a distributed model's Variables (whitepaper 3.3 fault tolerance) through any
// Run function: the Master (variables on ps tasks) or a local Session (allreduce replicas). It
// adds, under the name scope "ckpt", an Identity reading each Variable ("ckpt/read_<i>") and an
// Assign from a fed Placeholder ("ckpt/value_<i>"), all on the Variable's device, grouped under
// "ckpt/restore". Files are engine/checkpoint's format (docs/checkpoints.md), named
// CheckpointPath(dir, step) = "<dir>/ckpt-<step>.h5", with the step stored as global_step, so
// `flowbench` checkpoint tools read them. Not thread-safe against concurrent training steps of
// asynchronous replicas (a checkpoint then mixes updates; TensorFlow's Saver has the same
// property).
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "engine/checkpoint/checkpoint_dir.h"
#include "engine/client/scope.h"

namespace fb::mpi {

using RunFn = std::function<Status(const std::vector<std::pair<std::string, Tensor>>& feeds,
                                   const std::vector<std::string>& fetches,
                                   const std::vector<std::string>& targets, std::vector<Tensor>* out)>;

class VariableCheckpointer {
 public:
  // `vars` are Variable outputs of `root`'s graph; names are their node names.
  static VariableCheckpointer Build(const Scope& root, const std::vector<Output>& vars);
  // Reads every Variable and writes CheckpointPath(dir, step) (creating dir, and removing
  // temporary files of killed saves first). Errors name the file or the node.
  Status Save(const RunFn& run, const std::string& dir, int64_t step) const;
  // Assigns every Variable from the newest valid checkpoint in `dir` (RestoreNewestValid of
  // engine/checkpoint/checkpoint_dir.h: corrupt newer ones are skipped with a warning; one that
  // does not fit is an error naming file and variable). `found` is false only when `dir` holds
  // no checkpoint; `step` is the saved step.
  StatusOr<RestoredCheckpoint> RestoreLatest(const RunFn& run, const std::string& dir) const;
  // "ckpt/read_<i>" for every Variable: fetch them for the Variables' current values.
  std::vector<std::string> ReadNames() const;

 private:
  std::vector<std::string> names_;
  std::vector<DataType> dtypes_;
  std::vector<TensorShape> shapes_;
};

}  // namespace fb::mpi
