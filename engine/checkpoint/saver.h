#pragma once
// Saver: checkpoints of a graph's Variables (whitepaper 3.3: "each Variable node is connected to
// a Save node ... Similarly each Variable is connected to a Restore node that is only enabled in
// the first iteration after a restart"), after TensorFlow's tf.train.Saver. Create adds, under
// the name scope "save":
//   save/filename      Placeholder(string, [])   the checkpoint path, fed by Save and Restore
//   save/global_step   Placeholder(int64, [])    the step, fed by Save
//   save/Save          Save(filename, names, [variables..., global_step])
//   save/restore_<i>   Restore(filename, name) -> Assign(variable_i)   (validate_shape)
//   save/restore_all   NoOp with control inputs from every Assign
// so build the Saver before handing the graph to the Session (Session::Extend). Save and Restore
// are then ordinary Session::Run calls: the nodes only run when fetched (whitepaper 4.2), which is
// how Restore is "enabled" only after a restart.
//
// Typical use (what `flowbench train --checkpoint-dir D --checkpoint-every N --resume` does):
//
//   ASSIGN_OR_RETURN(auto saver, Saver::ForAllVariables(root));
//   ... session->Extend(root.ToGraphDef()) ...
//   CheckpointManager ckpt(saver.get(), dir, /*keep_last=*/5);
//   int64_t first_step = 0;
//   RestoredCheckpoint restored;
//   if (resume) ASSIGN_OR_RETURN(restored, ckpt.RestoreLatest(session.get()));
//   if (restored.found) first_step = restored.step + 1;  // found is false only for "no checkpoint"
//   else { run the initializers }
//   for (int64_t step = first_step; step < steps; ++step) {
//     ... train ...
//     if ((step + 1) % every == 0) RETURN_IF_ERROR(ckpt.Save(session.get(), step).status());
//   }
//
// File format: engine/checkpoint/checkpoint_file.h and docs/checkpoints.md; which checkpoint a
// resume picks, and which it skips: engine/checkpoint/checkpoint_dir.h. Thread-safety: a
// Saver is immutable after Create; Save and Restore may run concurrently with training steps
// (variables are snapshotted copy-on-write), but two Saves to one path must not race.
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "engine/checkpoint/checkpoint_dir.h"
#include "engine/client/scope.h"
#include "engine/runtime/session.h"

namespace fb {

class Saver {
 public:
  // Checkpoints `variables`: (name in the checkpoint, a Variable's ref output). Errors (also left
  // in the scope): InvalidArgument for an empty list, a repeated or reserved name
  // ("global_step" is the Saver's own), or an output that is not a Variable.
  static StatusOr<std::unique_ptr<Saver>> Create(
      const Scope& scope, const std::vector<std::pair<std::string, Output>>& variables);
  // Every Variable node of the scope's graph, named by its node name.
  static StatusOr<std::unique_ptr<Saver>> ForAllVariables(const Scope& scope);

  // Writes every variable and `global_step` to `path` (atomically, see WriteCheckpoint).
  // Errors from the Save kernel name the node, the file and the variable (e.g. an uninitialized
  // variable is FailedPrecondition).
  Status Save(Session* session, const std::string& path, int64_t global_step) const;
  // Assigns every variable from `path` and returns the saved global step. Errors name the file
  // and the variable: missing file, truncated or corrupt file, missing variable, wrong dtype or
  // shape.
  StatusOr<int64_t> Restore(Session* session, const std::string& path) const;

  const std::vector<std::string>& variable_names() const { return names_; }

 private:
  Saver() = default;
  std::vector<std::string> names_;
  std::string filename_feed_, step_feed_, save_target_, restore_target_, step_fetch_;
};

// Periodic checkpoints in one directory, keeping the newest `keep_last` (0 keeps all).
class CheckpointManager {
 public:
  CheckpointManager(const Saver* saver, std::string dir, int keep_last)
      : saver_(saver), dir_(std::move(dir)), keep_last_(keep_last) {}
  // Creates the directory if needed, removes temporary files of killed saves
  // (RemoveStaleTemporaryFiles), writes CheckpointPath(dir, step), then deletes the oldest
  // checkpoints beyond keep_last (PruneCheckpoints). Returns the path written.
  StatusOr<std::string> Save(Session* session, int64_t step) const;
  // Restores the newest valid checkpoint (RestoreNewestValid: corrupt newer ones are skipped
  // with a warning; one that does not fit the graph is an error naming file and variable).
  // `found` is false only when the directory holds no checkpoint: then nothing was assigned.
  StatusOr<RestoredCheckpoint> RestoreLatest(Session* session) const;
  const std::string& dir() const { return dir_; }

 private:
  const Saver* saver_;
  std::string dir_;
  int keep_last_;
};

}  // namespace fb
