#include "mpi/dist_train.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

#include "engine/client/state_ops.h"
#include "engine/runtime/session.h"
#include "engine/trace/trace_writer.h"
#include "mpi/dist_model.h"
#include "mpi/master.h"
#include "mpi/mpi_status.h"
#include "mpi/trainers.h"
#include "mpi/variable_checkpointer.h"
#include "mpi/worker_service.h"

namespace fb::mpi {

namespace {

WordLmDistOptions WordLm(const DistTrainOptions& o) {
  WordLmDistOptions w;
  w.vocab_size = o.vocab_size;
  w.num_steps = o.unroll;
  w.batch_size = o.batch_per_replica;
  return w;
}

// What both drivers share: the model, the checkpointer and the resume logic.
struct Trainer {
  const DistTrainOptions& o;
  const DistModel& model;
  VariableCheckpointer ckpt;
  RunFn run;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  std::vector<double> step_s;      // wall time of every training step run, for metrics_json
  int64_t examples_per_step = 0;   // over all replicas

  // Feeds of graph replica `replica` holding shard `shard` of `shards` of step `step`.
  Feeds ReplicaFeeds(int replica, int64_t step, int shard, int shards) const {
    return model.ReplicaFeeds(replica, step, shard, shards, o.batch_per_replica);
  }
  // Restores or initializes; returns the first step to run.
  StatusOr<int64_t> Start(const std::string& init) {
    if (o.resume && !o.checkpoint_dir.empty()) {
      // Only an empty (or missing) directory means "start from scratch": a corrupt newest
      // checkpoint is skipped with a warning, one that does not fit the model is an error.
      ASSIGN_OR_RETURN(RestoredCheckpoint restored, ckpt.RestoreLatest(run, o.checkpoint_dir));
      if (restored.found) {
        if (WorldRank() == 0)
          std::printf("resumed from checkpoint step %lld\n", static_cast<long long>(restored.step));
        return restored.step + 1;
      }
    }
    std::vector<Tensor> out;
    RETURN_IF_ERROR(run({}, {}, {init}, &out));
    return int64_t{0};
  }
  Status MaybeCheckpoint(int64_t step) {
    if (o.checkpoint_dir.empty() || (step + 1) % o.checkpoint_every != 0 || WorldRank() != 0)
      return Status::OK();
    RETURN_IF_ERROR(ckpt.Save(run, o.checkpoint_dir, step));
    std::printf("checkpoint step %lld\n", static_cast<long long>(step));
    std::fflush(stdout);
    return Status::OK();
  }
  Status Finish() {
    ASSIGN_OR_RETURN(auto metrics, model.Evaluate(run, ckpt.ReadNames()));
    for (const auto& [name, value] : metrics) std::printf("final_%s %.6g\n", name.c_str(), value);
    std::fflush(stdout);
    RETURN_IF_ERROR(WriteMetricsJson(metrics));
    const double loss = metrics["loss"];
    if (o.max_final_loss > 0 && !(loss <= o.max_final_loss))
      return OutOfRange("final loss ", loss, " is above the band ", o.max_final_loss);
    return Status::OK();
  }
  Status WriteMetricsJson(const std::map<std::string, double>& metrics) const {
    if (o.metrics_json.empty()) return Status::OK();
    nlohmann::json j = {{"model", o.model}, {"mode", o.mode}, {"cluster", o.cluster},
                        {"ranks", WorldSize()}, {"steps", o.steps},
                        {"batch_size", o.batch_per_replica}, {"learning_rate", o.learning_rate},
                        {"seed", o.seed}, {"step_s", step_s},
                        {"examples_per_step", examples_per_step},
                        {"wall_s", std::chrono::duration<double>(
                                       std::chrono::steady_clock::now() - start).count()}};
    for (const auto& [name, value] : metrics) j["final_" + name] = value;
    std::ofstream out(o.metrics_json);
    out << j.dump(2) << "\n";
    out.close();
    if (!out) return Internal("cannot write metrics JSON '", o.metrics_json, "'");
    return Status::OK();
  }
  bool ShouldFail(int64_t step) const {
    return !o.resume && step == o.fail_at_step && WorldRank() == WorldSize() - 1;
  }
};

Status RunAllreduce(const DistTrainOptions& o) {
  ASSIGN_OR_RETURN(auto model,
                   MakeDistModel(o.model, o.features, o.seed, o.batch_per_replica, WordLm(o)));
  Trainer t{o, *model};
  t.examples_per_step = int64_t{o.batch_per_replica} * (IsWordLmDistModel(o.model) ? o.unroll : 1) *
                        WorldSize();
  Scope root = Scope::NewRootScope();
  DataParallelGraph g = BuildAllreduceReplica(root, model->Fns(), o.learning_rate);
  t.ckpt = VariableCheckpointer::Build(root, g.vars);
  RETURN_IF_ERROR(root.status());
  ASSIGN_OR_RETURN(auto session, Session::Create({}));
  RETURN_IF_ERROR(session->Extend(root.ToGraphDef()));
  t.run = [&](const Feeds& f, const std::vector<std::string>& fe, const std::vector<std::string>& ta,
              std::vector<Tensor>* out) { return session->Run(f, fe, ta, out); };
  ASSIGN_OR_RETURN(int64_t first, t.Start(g.init));
  std::vector<Tensor> out;
  for (int64_t step = first; step < o.steps; ++step) {
    if (t.ShouldFail(step)) std::_Exit(17);
    const auto step_start = std::chrono::steady_clock::now();
    RETURN_IF_ERROR(session->Run(t.ReplicaFeeds(0, step, WorldRank(), WorldSize()), {}, {"train"}, &out));
    t.step_s.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count());
    RETURN_IF_ERROR(t.MaybeCheckpoint(step));
  }
  return WorldRank() == 0 ? t.Finish() : Status::OK();
}

StatusOr<DataParallelGraph> BuildPsGraph(const DistTrainOptions& o, const ClusterSpec& cluster,
                                         const Scope& root, const ModelFns& fns) {
  int workers = static_cast<int>(cluster.RanksOfJob("worker").size());
  int ps = static_cast<int>(cluster.RanksOfJob("ps").size());
  if (workers < 1 || ps < 1)
    return InvalidArgument("mode '", o.mode, "' needs jobs ps and worker, cluster is '", cluster.ToString(), "'");
  auto w = JobDevices("worker", workers), p = JobDevices("ps", ps);
  if (o.mode == "sync") return BuildSyncReplicas(root, fns, w, p, o.learning_rate);
  if (o.mode == "async") return BuildAsyncReplicas(root, fns, w, p, o.learning_rate);
  if (o.mode == "backup") return BuildBackupReplicas(root, fns, w, p, workers - o.backups, o.learning_rate);
  return InvalidArgument("unknown mode '", o.mode, "' (sync, async, backup, allreduce)");
}

// One synchronous step of every replica; traced into `trace` when it is not null.
Status SyncStep(Master* master, const Feeds& feeds, int64_t step, TraceWriter* trace) {
  RunOptions options;
  options.trace = trace != nullptr;
  RunMetadata md;
  std::vector<Tensor> out;
  const int64_t start_ns = NowNs();
  RETURN_IF_ERROR(master->Run(options, feeds, {}, {"train"}, &out, &md));
  if (trace == nullptr) return Status::OK();
  StepTotals totals;
  totals.start_ns = start_ns;
  totals.end_ns = NowNs();
  return trace->AddStep(step, md.step_stats, totals);
}

Status RunMasterLoop(const DistTrainOptions& o, Trainer& t, Master* master, const DataParallelGraph& g,
                     TraceWriter* trace) {
  t.run = [master](const Feeds& f, const std::vector<std::string>& fe, const std::vector<std::string>& ta,
                   std::vector<Tensor>* out) { return master->Run(f, fe, ta, out); };
  ASSIGN_OR_RETURN(int64_t first, t.Start(g.init));
  int replicas = static_cast<int>(g.losses.size());
  auto feeds = [&](int r, int64_t step) { return t.ReplicaFeeds(r, step, r, replicas); };
  std::unique_ptr<BackupWorkerTrainer> backup;
  if (o.mode == "backup") backup = std::make_unique<BackupWorkerTrainer>(master, g, replicas - o.backups, feeds);
  std::vector<Tensor> out;
  t.examples_per_step = int64_t{o.batch_per_replica} *
                        (IsWordLmDistModel(o.model) ? o.unroll : 1) *
                        (o.mode == "backup" ? replicas - o.backups : replicas);
  for (int64_t step = first; step < o.steps; ++step) {
    const auto step_start = std::chrono::steady_clock::now();
    if (o.mode == "sync") {
      Feeds all;
      for (int r = 0; r < replicas; ++r) {
        auto f = feeds(r, step);
        all.insert(all.end(), f.begin(), f.end());
      }
      RETURN_IF_ERROR(SyncStep(master, all, step, trace));
    } else if (o.mode == "async") {
      // One round: every replica one step at its own pace (steps of a round overlap).
      RETURN_IF_ERROR(AsyncTrain(master, g, 1, [&](int r, int64_t) { return feeds(r, step); }));
    } else {
      RETURN_IF_ERROR(backup->Step(step).status());
    }
    t.step_s.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - step_start).count());
    RETURN_IF_ERROR(t.MaybeCheckpoint(step));
  }
  if (backup) RETURN_IF_ERROR(backup->Drain());
  if (trace != nullptr) RETURN_IF_ERROR(trace->Close());
  return t.Finish();
}

// The graph of one synchronous training step as the master runs it (feeds rewritten to _Feed
// nodes on rank 0, pruned to "train"), what --export-graph writes and the trace records.
StatusOr<std::unique_ptr<Graph>> TrainStepGraph(Master* master, const Trainer& t, int replicas) {
  std::vector<std::string> feeds;
  for (int r = 0; r < replicas; ++r)
    for (const auto& [name, value] : t.ReplicaFeeds(r, 0, r, replicas)) feeds.push_back(name);
  return master->ExecutionGraph(feeds, {}, {"train"});
}

// The trace writer of --trace (null without), with the training step's graph.
StatusOr<std::unique_ptr<TraceWriter>> OpenTrace(const DistTrainOptions& o, const Graph& step_graph) {
  if (o.trace_path.empty()) return std::unique_ptr<TraceWriter>();
  TraceMetadata meta = DefaultTraceMetadata(TraceMode::kReal, 0, nullptr);
  meta.command_line = "flowbench dist-train --model " + o.model + " --mode " + o.mode;
  meta.config_json = nlohmann::json{{"model", o.model}, {"mode", o.mode}, {"cluster", o.cluster},
                                    {"ranks", WorldSize()}, {"batch_per_replica", o.batch_per_replica},
                                    {"steps", o.steps}, {"learning_rate", o.learning_rate}}.dump();
  ASSIGN_OR_RETURN(auto writer, TraceWriter::Create(o.trace_path, meta));
  RETURN_IF_ERROR(writer->AddGraph(step_graph));
  return writer;
}

Status RunWithParameterServers(const DistTrainOptions& o, const ClusterSpec& cluster) {
  if (WorldRank() != 0) {
    WorkerOptions wo;
    // Worker runs are one per training step from the start of this launch (init and checkpoint
    // runs touch only the ps tasks), so the fault hits in step fail_at_step.
    if (!o.resume && o.fail_at_step >= 0 && WorldRank() == WorldSize() - 1) wo.exit_at_run = o.fail_at_step + 1;
    return ServeWorker(cluster, wo);
  }
  // The master first: once it exists, any error below still shuts the workers down.
  ASSIGN_OR_RETURN(auto master, Master::Create(cluster));
  ASSIGN_OR_RETURN(auto model,
                   MakeDistModel(o.model, o.features, o.seed, o.batch_per_replica, WordLm(o)));
  Trainer t{o, *model};
  Scope root = Scope::NewRootScope();
  ASSIGN_OR_RETURN(DataParallelGraph g, BuildPsGraph(o, cluster, root, model->Fns()));
  t.ckpt = VariableCheckpointer::Build(root, g.vars);
  RETURN_IF_ERROR(root.status());
  RETURN_IF_ERROR(master->Extend(root.ToGraphDef()));
  std::unique_ptr<TraceWriter> trace;
  if (!o.export_graph.empty() || !o.trace_path.empty()) {
    ASSIGN_OR_RETURN(auto step_graph, TrainStepGraph(master.get(), t, static_cast<int>(g.losses.size())));
    if (!o.export_graph.empty()) RETURN_IF_ERROR(WriteGraphDefFile(step_graph->ToGraphDef(), o.export_graph));
    ASSIGN_OR_RETURN(trace, OpenTrace(o, *step_graph));
  }
  return RunMasterLoop(o, t, master.get(), g, trace.get());
}

}  // namespace

Status RunDistTrain(const DistTrainOptions& o) {
  if (o.batch_per_replica < 1 || o.steps < 0 || o.checkpoint_every < 1)
    return InvalidArgument("dist-train: batch_per_replica and checkpoint_every must be >= 1, steps >= 0");
  if (o.mode != "sync" && o.mode != "async" && o.mode != "backup" && o.mode != "allreduce")
    return InvalidArgument("dist-train: unknown mode '", o.mode, "' (sync, async, backup, allreduce)");
  if (o.mode != "sync" && !(o.trace_path.empty() && o.export_graph.empty()))
    return InvalidArgument("dist-train: --trace and --export-graph need mode sync, not '", o.mode, "'");
  if (o.mode == "allreduce") return RunAllreduce(o);
  ClusterSpec cluster = ClusterSpec::AllWorkers(WorldSize());
  if (!o.cluster.empty()) {
    ASSIGN_OR_RETURN(cluster, ClusterSpec::Parse(o.cluster));
  } else if (WorldSize() > 1) {
    ASSIGN_OR_RETURN(cluster, ClusterSpec::Parse("ps=1,worker=" + std::to_string(WorldSize() - 1)));
  }
  RETURN_IF_ERROR(cluster.CheckWorldSize(WorldSize()));
  // Checked here, on every rank alike, before any rank waits for another.
  const size_t workers = cluster.RanksOfJob("worker").size();
  if (workers < 1 || cluster.RanksOfJob("ps").empty())
    return InvalidArgument("dist-train: mode '", o.mode, "' needs jobs ps and worker, cluster is '",
                           cluster.ToString(), "'",
                           WorldSize() == 1 ? " (one process: start it under mpirun -np N, N >= 2)"
                                            : "");
  if (o.mode == "backup" && (o.backups < 0 || static_cast<size_t>(o.backups) >= workers))
    return InvalidArgument("dist-train: --backups ", o.backups, " needs more workers than "
                           "backups (each step applies the first workers - backups gradients), "
                           "cluster '", cluster.ToString(), "' has ", workers);
  return RunWithParameterServers(o, cluster);
}

}  // namespace fb::mpi
