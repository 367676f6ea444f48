// `flowbench dist-train`: data-parallel training over an mpirun job, and
// `flowbench supervise`, which relaunches a failed job with --resume (whitepaper 3.3).
//   mpirun -np 4 flowbench dist-train --cluster ps=1,worker=3 --mode sync --steps 100
//   mpirun -np 3 flowbench dist-train --model lenet --steps 200 --batch-size 32 --lr 0.05
//     --trace t.h5 --export-graph g.json --metrics-json m.json
//   flowbench supervise -- mpirun -np 3 flowbench dist-train --checkpoint-dir ck --fail-at-step 25
// The flags map onto mpi/dist_train.h's DistTrainOptions; the work is in mpi/.
#include <mpi.h>

#include <filesystem>
#include <iostream>

#include "apps/commands.h"
#include "apps/flag_checks.h"
#include "mpi/dist_train.h"
#include "mpi/mpi_status.h"
#include "mpi/mpi_transport.h"
#include "mpi/supervisor.h"

namespace fb::apps {
namespace {

Status RunUnderMpi(const mpi::DistTrainOptions& o) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_MULTIPLE, &provided);
  if (provided < MPI_THREAD_MULTIPLE) {
    MPI_Finalize();
    return FailedPrecondition("dist-train: the MPI library does not provide MPI_THREAD_MULTIPLE");
  }
  // OpenBLAS stays at one thread (kernels/cpu/matmul.cc's default, or OPENBLAS_NUM_THREADS), as
  // in `train` and `benchmark`: GEMMs are split over the device's intra-op pool, which already
  // holds this rank's share of the node's cores. OpenBLAS's own workers spin (sched_yield)
  // between calls: with one rank per host they took a third of the CPU of 4 emulated hosts
  // sharing 2 cores (docs/cluster.md, "Spinning threads").
  Status s = mpi::RunDistTrain(o);
  if (!s.ok()) {
    // Peers may wait for this rank inside a collective or a Recv: end the whole job, with the
    // reason printed first (an abort alone would give no context).
    std::cerr << "flowbench dist-train (rank " << mpi::WorldRank() << "): " << s.ToString() << std::endl;
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  mpi::MpiTransport::Get()->Shutdown();
  MPI_Finalize();
  return s;
}

FB_REGISTER_COMMAND("dist-train", [](CLI::App* app) {
  auto* cmd = app->add_subcommand("dist-train", "Data-parallel training over MPI (run under mpirun)");
  static mpi::DistTrainOptions options;
  auto* o = &options;
  cmd->add_option("--cluster", o->cluster, "Jobs in rank order, e.g. ps=1,worker=3");
  cmd->add_option("--model", o->model,
                  "linear | lenet | mlp (Fashion-MNIST) | lstm_lm_word | lstm_lm_word_sampled | "
                  "alexnet ... (synthetic data)")
      ->capture_default_str();
  cmd->add_option("--seed", o->seed, "Weight initialisation seed (lenet, mlp)")
      ->check(IntRange(0, INT64_MAX))->capture_default_str();
  cmd->add_option("--mode", o->mode, "sync | async | backup | allreduce")->capture_default_str();
  cmd->add_option("--steps", o->steps, "Training steps")
      ->check(PositiveCount(kMaxSteps))->capture_default_str();
  cmd->add_option("--batch-size,--batch", o->batch_per_replica, "Examples per replica per step")
      ->check(PositiveCount(kMaxBatchSize))->capture_default_str();
  cmd->add_option("--lr,--learning-rate", o->learning_rate, "Learning rate (SGD)")
      ->check(FiniteRange(1e-12, kMaxLearningRate))->capture_default_str();
  cmd->add_option("--backups", o->backups, "Backup workers (mode backup)")
      ->check(IntRange(0, kMaxTasks))->capture_default_str();
  cmd->add_option("--features", o->features, "Model input features (linear)")
      ->check(PositiveCount(kMaxUnits))->capture_default_str();
  cmd->add_option("--vocab", o->vocab_size, "Vocabulary size V (lstm_lm_word*)")
      ->check(IntRange(2, 1 << 24))->capture_default_str();
  cmd->add_option("--unroll", o->unroll, "Words per example, the unroll length (lstm_lm_word*)")
      ->check(IntRange(1, 1 << 16))->capture_default_str();
  cmd->add_option("--checkpoint-dir", o->checkpoint_dir, "Checkpoint directory");
  cmd->add_option("--checkpoint-every", o->checkpoint_every, "Steps between checkpoints")
      ->check(PositiveCount(kMaxSteps))->capture_default_str();
  cmd->add_flag("--resume", o->resume, "Restore the newest checkpoint first");
  cmd->add_option("--fail-at-step", o->fail_at_step,
                  "Fault injection: the last rank exits in this step")
      ->check(IntRange(0, kMaxSteps));
  cmd->add_option("--max-final-loss", o->max_final_loss,
                  "Fail if the final held-out loss is above this")
      ->check(FiniteRange(0, 1e30));
  cmd->add_option("--trace", o->trace_path,
                  "Mode sync: write an HDF5 trace of every step (FILE.h5)")
      ->check(OutputFileCheck());
  cmd->add_option("--export-graph", o->export_graph,
                  "Mode sync: write one training step's GraphDef JSON")
      ->check(OutputFileCheck());
  cmd->add_option("--metrics-json", o->metrics_json, "Rank 0 writes the run's metrics as JSON")
      ->check(OutputFileCheck());
  cmd->callback([o]() {
    for (const std::string& file : {o->trace_path, o->export_graph, o->metrics_json}) {
      std::error_code ec;
      if (std::filesystem::path p(file); p.has_parent_path())
        std::filesystem::create_directories(p.parent_path(), ec);
    }
    Status s = RunUnderMpi(*o);
    if (!s.ok()) Fail("dist-train", s);
  });
});

FB_REGISTER_COMMAND("supervise", [](CLI::App* app) {
  auto* cmd = app->add_subcommand("supervise", "Run a command; relaunch it with --resume when it fails");
  static mpi::SupervisorOptions options;
  static std::vector<std::string> command_line;
  auto* o = &options;
  auto* command = &command_line;
  cmd->add_option("--max-restarts", o->max_restarts, "Relaunches before giving up")
      ->check(IntRange(0, 1000))->capture_default_str();
  cmd->add_option("--resume-flag", o->resume_flag, "Flag appended on relaunch")->capture_default_str();
  cmd->add_option("command", *command, "The command, after --")->required();
  cmd->callback([o, command]() {
    auto restarts = mpi::Supervise(*command, *o);
    if (!restarts.ok()) return Fail("supervise", restarts.status());
    std::cout << "flowbench supervise: finished after " << *restarts << " restart(s)\n";
  });
});

}  // namespace
}  // namespace fb::apps
