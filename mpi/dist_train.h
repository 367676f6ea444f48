#pragma once
// `flowbench dist-train`: data-parallel training of the LinearRegression model over an mpirun job
// (whitepaper section 7 and 3.3), the driver behind the README's mpirun commands and the
// fault-tolerance test. Call between MPI_Init_thread(MPI_THREAD_MULTIPLE) and MPI_Finalize on
// every rank.
//
// Modes: sync | async | backup (parameter servers; cluster "ps=P,worker=W", rank 0 is ps task 0
// and also the client and master) and allreduce (every rank a worker replica, no master).
// Checkpoints every `checkpoint_every` steps into `checkpoint_dir` (VariableCheckpointer);
// `resume` restores the newest one and continues from the step after it, so a crash loses at most
// the steps since the last checkpoint. `fail_at_step` (fault injection, ignored with `resume`):
// the last rank exits abruptly in that step (0-based), as a crashed machine would.
// Rank 0 prints one line per checkpoint and at the end "final_loss <held-out MSE>"; with
// max_final_loss > 0 a final loss above it is an error (the accuracy band of the tests).
#include <cstdint>
#include <string>

#include "engine/framework/status.h"

namespace fb::mpi {

struct DistTrainOptions {
  std::string cluster;      // "ps=1,worker=3"; "" : ps=1,worker=<ranks-1> (allreduce: all workers)
  std::string mode = "sync";
  int64_t steps = 100;
  int batch_per_replica = 32;
  double learning_rate = 0.1;
  int backups = 1;          // backup mode: b (N = workers - b)
  int features = 8;
  std::string checkpoint_dir;
  int64_t checkpoint_every = 10;
  bool resume = false;
  int64_t fail_at_step = -1;
  double max_final_loss = 0;
};

// InvalidArgument for a bad mode or cluster (naming it); training errors name task and node.
Status RunDistTrain(const DistTrainOptions& options);

}  // namespace fb::mpi
