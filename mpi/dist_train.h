#pragma once
// `flowbench dist-train`: data-parallel training of the LinearRegression model over an mpirun job
// (whitepaper section 7 and 3.3), the driver behind the README's mpirun commands and the
// fault-tolerance test. Call between MPI_Init_thread(MPI_THREAD_MULTIPLE) and MPI_Finalize on
// every rank.
//
// Models (dist_model.h): linear (synthetic regression), lenet and mlp (Fashion-MNIST), the word
// LSTM language model lstm_lm_word[_sampled] (OSDI 6.4, synthetic tokens).
// Modes: sync | async | backup (parameter servers; cluster "ps=P,worker=W", rank 0 is ps task 0
// and also the client and master) and allreduce (every rank a worker replica, no master).
// Checkpoints every `checkpoint_every` steps into `checkpoint_dir` (VariableCheckpointer);
// `resume` restores the newest one and continues from the step after it, so a crash loses at most
// the steps since the last checkpoint. `fail_at_step` (fault injection, ignored with `resume`):
// the last rank exits abruptly in that step (0-based), as a crashed machine would.
// Rank 0 prints one line per checkpoint and at the end "final_loss <held-out loss>" (MSE for
// linear, cross-entropy for the classifiers, which also print "final_accuracy <fraction>"); with
// max_final_loss > 0 a final loss above it is an error (the accuracy band of the tests).
// Mode sync also writes, on request, what the simulator replays (issue 6 validation):
// `trace_path`, an HDF5 trace (engine/trace) of every step with every rank's node executions
// (Master::Run with tracing; step times are the client's, from issuing the step to its end), and
// `export_graph`, the GraphDef JSON of one training step as the master runs it
// (Master::ExecutionGraph: feeds rewritten to _Feed nodes on rank 0, pruned to "train"; devices
// as requested: /job:ps/task:k, /job:worker/task:k).
#include <cstdint>
#include <string>

#include "engine/framework/status.h"

namespace fb::mpi {

struct DistTrainOptions {
  std::string cluster;      // "ps=1,worker=3"; "" : ps=1,worker=<ranks-1> (allreduce: all workers)
  std::string model = "linear";  // linear | lenet | mlp | lstm_lm_word | lstm_lm_word_sampled
  int64_t seed = 1;               // lenet, mlp: weight initialisation
  std::string mode = "sync";
  int64_t steps = 100;
  int batch_per_replica = 32;
  double learning_rate = 0.1;
  int backups = 1;          // backup mode: b (N = workers - b)
  int features = 8;
  int64_t vocab_size = 40000;  // lstm_lm_word*: V
  int64_t unroll = 20;         // lstm_lm_word*: T, words per example
  std::string checkpoint_dir;
  int64_t checkpoint_every = 10;
  bool resume = false;
  int64_t fail_at_step = -1;
  double max_final_loss = 0;
  std::string trace_path;    // sync: HDF5 trace of every step ("" : none)
  std::string export_graph;  // sync: GraphDef JSON of one training step ("" : none)
  // Rank 0 writes the run's configuration and final metrics here as JSON ("" : none).
  std::string metrics_json;
};

// `metrics_json`: rank 0 writes {model, mode, cluster, ranks, steps, batch_size, learning_rate,
// seed, final_loss, final_<metric>..., wall_s, step_s, examples_per_step} at the end of any
// mode: step_s holds the wall time of every training step (sync and async: one round of every
// replica; backup: one step), examples_per_step the examples (words for the language models) one
// step processes over all replicas.
// InvalidArgument for a bad mode, model or cluster (naming it), or a trace or graph export
// outside mode sync; training errors name task and node; trace, export and metrics errors name
// the file.
Status RunDistTrain(const DistTrainOptions& options);

}  // namespace fb::mpi
