#include "experiments/training/benchmark.h"
#include "experiments/training/synthetic_inputs.h"

#include <sys/resource.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <limits>
#include <random>
#include <nlohmann/json.hpp>

#include "datasets/synthetic.h"
#include "engine/runtime/local_devices.h"
#include "engine/runtime/session.h"
#include "engine/runtime/step_stats.h"
#include "engine/trace/trace_writer.h"
#include "experiments/models/model_stats.h"

namespace fb::experiments {
namespace {

using Clock = std::chrono::steady_clock;
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

Status CheckOptions(const BenchmarkOptions& o) {
  if (o.num_batches < 1) return InvalidArgument("num_batches must be >= 1, got ", o.num_batches);
  if (o.num_warmup_batches < 0) {
    return InvalidArgument("num_warmup_batches must be >= 0, got ", o.num_warmup_batches);
  }
  if (o.threads < 1) return InvalidArgument("threads must be >= 1, got ", o.threads);
  if (o.trace_steps < 0) return InvalidArgument("trace_steps must be >= 0, got ", o.trace_steps);
  return Status::OK();
}

// The model's registered input shape and classes; checks that the dataset, if any, fits them.
StatusOr<ModelOptions> ResolveModelOptions(const BenchmarkOptions& o) {
  ASSIGN_OR_RETURN(ModelOptions mo, WithModelDefaults(o.model, o.model_options));
  if (o.dataset) RETURN_IF_ERROR(CheckDatasetFitsModel(o.model, *o.dataset, mo.batch_size));
  return mo;
}

// A dataset name unique to this RunBenchmark call (the DatasetBatch op reads it by name).
std::string UniqueDatasetName(const datasets::Dataset& d) {
  static std::atomic<int64_t> counter{0};
  return "benchmark/" + std::to_string(counter++) + "/" + d.name;
}

// What one step feeds, fetches and runs in each mode. fetches[0] is the loss; forward mode
// fetches nothing.
struct StepSignature {
  std::vector<Session::NamedTensor> feeds;
  std::vector<std::string> fetches;
  std::vector<std::string> targets;
};

// Synthetic token ids for a language model (Model::example_unit "words"): int32
// [batch, num_steps], uniform in [0, vocab_size), from `seed`.
Tensor SyntheticTokens(const WordLmOptions& w, int64_t batch, uint64_t seed) {
  Tensor t(DataType::kInt32, TensorShape({batch, w.num_steps}));
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int32_t> id(0, static_cast<int32_t>(w.vocab_size - 1));
  int32_t* p = t.data<int32_t>();
  for (int64_t i = 0; i < t.NumElements(); ++i) p[i] = id(rng);
  return t;
}

// Synthetic input: one batch of random images and labels (datasets/synthetic.h), or of token ids
// and next-token ids for a language model (held in Variables by MakeSession, synthetic_inputs.h).
StatusOr<StepSignature> MakeSignature(const BenchmarkOptions& o, const ModelOptions& mo,
                                      const Model& m) {
  StepSignature sig;
  if (!o.dataset && m.example_unit == "words") {
    const auto seed = static_cast<uint64_t>(mo.seed);
    sig.feeds.emplace_back(m.images, SyntheticTokens(mo.word_lm, mo.batch_size, seed));
    if (o.mode != BenchmarkMode::kForward) {
      sig.feeds.emplace_back(m.labels, SyntheticTokens(mo.word_lm, mo.batch_size, seed + 1));
    }
  } else if (!o.dataset) {
    datasets::SyntheticOptions so;
    so.num_examples = mo.batch_size;
    so.image_shape = mo.image_shape;
    so.num_classes = mo.num_classes;
    so.seed = static_cast<uint64_t>(mo.seed);
    ASSIGN_OR_RETURN(std::shared_ptr<const datasets::Dataset> batch,
                     datasets::MakeSyntheticDataset(so));
    sig.feeds.emplace_back(m.images, batch->images);
    if (o.mode != BenchmarkMode::kForward) sig.feeds.emplace_back(m.labels, batch->labels);
  }
  switch (o.mode) {
    case BenchmarkMode::kForward:
      // The logits are computed, not fetched, as convnet-benchmarks' PyTorch forward keeps them on
      // the device: a fetch would copy them to the host each step on a GPU (the word LM's
      // [batch * 20, 40000] logits: 205 MB at batch 64).
      sig.targets = {m.logits.substr(0, m.logits.find(':'))};
      break;
    case BenchmarkMode::kForwardBackward:
      // The gradients are computed, not fetched (convnet-benchmarks runs them as targets): a
      // fetch would copy every gradient to the host each step on a GPU.
      sig.fetches = {m.loss};
      for (const std::string& g : m.gradients) sig.targets.push_back(g.substr(0, g.find(':')));
      break;
    case BenchmarkMode::kTrain:
      sig.fetches = {m.loss};
      sig.targets = {m.train_op};
      break;
  }
  return sig;
}

// A Session on the devices of --devices (engine/runtime/local_devices.h), initialized; their
// descriptions go to *devices.
StatusOr<std::unique_ptr<Session>> MakeSession(const Model& model, const BenchmarkOptions& o,
                                               StepSignature* sig,
                                               std::vector<std::string>* devices) {
  SessionOptions so;
  ASSIGN_OR_RETURN(so.device_mgr, CreateDevicesForFlag(o.devices, o.threads));
  *devices = DescribeDevicesForMetrics(*so.device_mgr);
  so.placer = o.placer;
  so.default_passes = o.default_passes;
  so.passes = o.passes;
  ASSIGN_OR_RETURN(auto session, Session::Create(so));
  GraphDef graph = model.scope.ToGraphDef();
  SyntheticInit synthetic;
  if (!o.dataset) {
    ASSIGN_OR_RETURN(synthetic, MoveFeedsIntoVariables(&graph, &sig->feeds));
  }
  RETURN_IF_ERROR(session->Extend(graph));
  std::vector<Tensor> none;
  RETURN_IF_ERROR(session->Run({}, {}, {model.init}, &none));
  if (!synthetic.targets.empty())
    RETURN_IF_ERROR(session->Run(synthetic.feeds, {}, synthetic.targets, &none));
  return session;
}

nlohmann::json ConfigJson(const BenchmarkOptions& o, const ModelOptions& mo) {
  return {{"command", "benchmark"},
          {"model", o.model},
          {"mode", BenchmarkModeName(o.mode)},
          {"batch_size", mo.batch_size},
          {"optimizer", mo.optimizer},
          {"learning_rate", mo.learning_rate},
          {"seed", mo.seed},
          {"threads", o.threads},
          {"devices", o.devices},
          {"placer", o.placer},
          {"default_passes", o.default_passes},
          {"num_batches", o.num_batches},
          {"num_warmup_batches", o.num_warmup_batches},
          {"image_shape", mo.image_shape},
          {"data", o.dataset ? o.dataset->name : "synthetic"}};
}

// One step: its wall time, loss (NaN in forward mode) and per-device peak bytes.
struct StepOutcome {
  double ms = 0;
  double loss = kNaN;
  int64_t start_ns = 0, end_ns = 0;
  RunMetadata metadata;
};

StatusOr<StepOutcome> RunStep(Session* session, const StepSignature& sig, BenchmarkMode mode,
                              bool trace) {
  StepOutcome s;
  RunOptions ro;
  ro.trace = trace;
  std::vector<Tensor> out;
  s.start_ns = NowNs();
  const Clock::time_point t0 = Clock::now();
  RETURN_IF_ERROR(session->Run(ro, sig.feeds, sig.fetches, sig.targets, &out, &s.metadata));
  // A step ends when its devices are idle (torch.cuda.synchronize() in the PyTorch scripts): Run
  // returns when a GPU's last kernel is queued, not when it has run. A no-op on CPU devices.
  for (Device* d : session->device_mgr()->devices()) RETURN_IF_ERROR(d->Sync());
  s.ms = SecondsSince(t0) * 1e3;
  s.end_ns = NowNs();
  if (mode != BenchmarkMode::kForward) s.loss = out[0].scalar<float>();
  return s;
}

struct Loop {
  const BenchmarkOptions& o;
  Session* session;
  const StepSignature& sig;
  TraceWriter* trace;  // null for no trace
  const BenchmarkCallbacks& callbacks;
};

// Runs `steps` steps of `phase`; global step numbers continue from *step. Timed steps go into
// `result` (times, peak bytes, the trace's /steps); traced steps into the trace only.
Status RunPhase(const Loop& l, BenchmarkPhase phase, int64_t steps, int64_t* step,
                BenchmarkResult* result) {
  const Clock::time_point start = Clock::now();
  // The timed steps' trace rows are written after the last of them: an HDF5 append between two
  // steps evicts what the next one would find in the caches (MLP at batch 16: 0.26 instead of
  // 0.19 ms per step with --trace), and `flowbench profile` takes its step times from such runs.
  std::vector<std::pair<int64_t, StepTotals>> untraced_rows;
  for (int64_t n = 0; n < steps; ++n, ++*step) {
    const bool traced = phase == BenchmarkPhase::kTracing;
    ASSIGN_OR_RETURN(StepOutcome s, RunStep(l.session, l.sig, l.o.mode, traced));
    if (phase == BenchmarkPhase::kTiming) {
      if (result->step_ms.empty()) {
        result->pass_reports.clear();
        for (const std::string& r : s.metadata.pass_reports)
          result->pass_reports.push_back(r.substr(0, r.find(" (")));
      }
      result->step_ms.push_back(s.ms);
      result->final_loss = s.loss;
      for (const auto& [device, bytes] : s.metadata.peak_bytes) {
        int64_t& peak = result->peak_bytes[device];
        peak = std::max(peak, bytes);
      }
    }
    if (l.trace != nullptr && phase != BenchmarkPhase::kWarmup) {
      if (traced) {
        RETURN_IF_ERROR(l.trace->AddRunMetadata(*step, s.metadata, s.loss));
        if (!std::isnan(s.loss)) RETURN_IF_ERROR(l.trace->AddMetric(*step, "loss", s.loss));
      } else {
        StepTotals totals;
        totals.start_ns = s.start_ns;
        totals.end_ns = s.end_ns;
        totals.loss = s.loss;
        totals.peak_bytes = s.metadata.peak_bytes;
        untraced_rows.emplace_back(*step, std::move(totals));
      }
    }
    if (l.callbacks.step)
      l.callbacks.step(phase, {n + 1, steps, 0, s.loss, SecondsSince(start), n + 1});
  }
  for (const auto& [n, totals] : untraced_rows) {
    RETURN_IF_ERROR(l.trace->AddStep(n, {}, totals));
    if (!std::isnan(totals.loss)) RETURN_IF_ERROR(l.trace->AddMetric(n, "loss", totals.loss));
  }
  return Status::OK();
}

int64_t CountParameters(const Model& m) {
  int64_t n = 0;
  for (const ModelVariable& v : m.variables) n += v.shape.num_elements();
  return n;
}

// The forward FLOPs per example (experiments/models/model_stats.h: 2 x multiply-adds of Conv2D
// and MatMul) in the model's unit: FLOPs of one batch divided by examples_per_step (images, or
// words for a language model). Nothing when they cannot be counted, or when the graph has a while
// loop: its body would count once instead of once per iteration.
std::optional<double> ForwardFlopsPerExample(const Model& model, int64_t batch_size) {
  for (const Node* n : model.scope.graph()->nodes()) {
    if (n->op() == "NextIteration") return std::nullopt;
  }
  StatusOr<int64_t> per_batch_row = experiments::ForwardFlopsPerExample(model);
  if (!per_batch_row.ok() || model.examples_per_step < 1) return std::nullopt;
  return static_cast<double>(*per_batch_row) * static_cast<double>(batch_size) /
         static_cast<double>(model.examples_per_step);
}

// The result's description of the run (everything but the measurements).
BenchmarkResult Describe(const BenchmarkOptions& o, const ModelOptions& mo, const Model& model) {
  BenchmarkResult r;
  r.model = o.model;
  r.mode = o.mode;
  r.data = o.dataset ? o.dataset->name : "synthetic";
  r.image_shape = mo.image_shape;
  r.num_classes = mo.num_classes;
  if (model.example_unit == "words") {  // token ids [batch, num_steps] over the vocabulary
    r.image_shape = {mo.word_lm.num_steps};
    r.num_classes = mo.word_lm.vocab_size;
  }
  r.batch_size = mo.batch_size;
  r.examples_per_step = model.examples_per_step;
  r.example_unit = model.example_unit;
  r.parameter_count = CountParameters(model);
  r.forward_flops_per_example = ForwardFlopsPerExample(model, mo.batch_size);
  return r;
}

// The trace writer with the session's graph, or null without --trace.
StatusOr<std::unique_ptr<TraceWriter>> OpenTrace(const BenchmarkOptions& o, const ModelOptions& mo,
                                                 const Session& session) {
  if (o.trace_path.empty()) return std::unique_ptr<TraceWriter>();
  TraceMetadata meta = o.trace_metadata;
  meta.seed = mo.seed;
  meta.config_json = ConfigJson(o, mo).dump();
  ASSIGN_OR_RETURN(std::unique_ptr<TraceWriter> trace, TraceWriter::Create(o.trace_path, meta));
  RETURN_IF_ERROR(trace->AddGraph(session.graph()));
  return trace;
}

}  // namespace

Status CheckDatasetFitsModel(const std::string& model, const datasets::Dataset& d,
                             int64_t batch_size) {
  ASSIGN_OR_RETURN(ModelDefaults m, LookupDefaults(model));
  if (d.image_shape() != m.image_shape) {
    return InvalidArgument("dataset '", d.name, "' has images of shape ",
                           TensorShape(d.image_shape()).DebugString(), " but model '", model,
                           "' takes ", TensorShape(m.image_shape).DebugString(),
                           ": use a dataset of the model's input shape, or synthetic input");
  }
  if (d.num_classes > m.num_classes) {
    return InvalidArgument("dataset '", d.name, "' has ", d.num_classes, " classes but model '",
                           model, "' has ", m.num_classes, " outputs");
  }
  if (d.size() < batch_size) {
    return InvalidArgument("dataset '", d.name, "' has ", d.size(),
                           " examples, fewer than one batch of ", batch_size);
  }
  return Status::OK();
}

const char* BenchmarkModeName(BenchmarkMode mode) {
  switch (mode) {
    case BenchmarkMode::kForward:
      return "forward";
    case BenchmarkMode::kForwardBackward:
      return "forward-backward";
    case BenchmarkMode::kTrain:
      return "train";
  }
  return "?";
}

const char* BenchmarkModeDescription(BenchmarkMode mode) {
  switch (mode) {
    case BenchmarkMode::kForward:
      return "forward pass: logits only";
    case BenchmarkMode::kForwardBackward:
      return "forward+backward: gradients, no update";
    case BenchmarkMode::kTrain:
      return "forward+backward+update: one training step";
  }
  return "?";
}

StatusOr<BenchmarkMode> ParseBenchmarkMode(const std::string& name) {
  for (BenchmarkMode m :
       {BenchmarkMode::kForward, BenchmarkMode::kForwardBackward, BenchmarkMode::kTrain}) {
    if (name == BenchmarkModeName(m)) return m;
  }
  return InvalidArgument("unknown benchmark mode '", name,
                         "' (expected forward, forward-backward or train)");
}

const char* BenchmarkPhaseName(BenchmarkPhase phase) {
  switch (phase) {
    case BenchmarkPhase::kWarmup:
      return "warm-up";
    case BenchmarkPhase::kTiming:
      return "timing";
    case BenchmarkPhase::kTracing:
      return "tracing";
  }
  return "?";
}

int64_t ProcessPeakRssBytes() {
  // VmHWM is the peak of this process image's own memory. getrusage's ru_maxrss is not: Linux
  // carries it over fork and execve, so a flowbench started by a large parent (a Python script
  // that imported torch) reported the parent's RSS when its own was smaller.
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);) {
    if (line.rfind("VmHWM:", 0) != 0) continue;
    int64_t kb = 0;
    if (std::sscanf(line.c_str() + 6, "%" SCNd64, &kb) == 1) return kb * 1024;
  }
  struct rusage usage {};
  if (getrusage(RUSAGE_SELF, &usage) != 0) return 0;
  return static_cast<int64_t>(usage.ru_maxrss) * 1024;  // Linux: kilobytes
}

StatusOr<BenchmarkResult> RunBenchmark(const BenchmarkOptions& o,
                                       const BenchmarkCallbacks& callbacks) {
  const Clock::time_point t0 = Clock::now();
  RETURN_IF_ERROR(CheckOptions(o));
  ASSIGN_OR_RETURN(ModelOptions mo, ResolveModelOptions(o));
  struct Unregister {
    std::string name;
    ~Unregister() {
      if (!name.empty()) datasets::DatasetRegistry::Global()->Unregister(name);
    }
  } unregister;
  if (o.dataset) {
    mo.dataset = UniqueDatasetName(*o.dataset);
    RETURN_IF_ERROR(datasets::DatasetRegistry::Global()->Register(mo.dataset, o.dataset));
    unregister.name = mo.dataset;
  }
  ASSIGN_OR_RETURN(Model model, BuildModel(o.model, mo));
  ASSIGN_OR_RETURN(StepSignature sig, MakeSignature(o, mo, model));
  std::vector<std::string> devices;
  ASSIGN_OR_RETURN(std::unique_ptr<Session> session, MakeSession(model, o, &sig, &devices));

  BenchmarkResult r = Describe(o, mo, model);
  r.devices = std::move(devices);
  if (callbacks.built) callbacks.built(r);
  int64_t step = 0;
  Loop loop{o, session.get(), sig, nullptr, callbacks};
  RETURN_IF_ERROR(RunPhase(loop, BenchmarkPhase::kWarmup, o.num_warmup_batches, &step, &r));
  // Created after the warm-up, so that the graph it records carries the assigned devices.
  ASSIGN_OR_RETURN(std::unique_ptr<TraceWriter> trace, OpenTrace(o, mo, *session));
  loop.trace = trace.get();
  const Clock::time_point timed = Clock::now();
  RETURN_IF_ERROR(RunPhase(loop, BenchmarkPhase::kTiming, o.num_batches, &step, &r));
  r.total_examples_per_sec =
      static_cast<double>(r.examples_per_step * o.num_batches) / SecondsSince(timed);
  if (trace) {
    RETURN_IF_ERROR(RunPhase(loop, BenchmarkPhase::kTracing, o.trace_steps, &step, &r));
    RETURN_IF_ERROR(trace->Close());
  }
  ASSIGN_OR_RETURN(r.stats, SummarizeStepTimes(r.step_ms, r.examples_per_step));
  r.peak_rss_bytes = ProcessPeakRssBytes();
  r.wall_s = SecondsSince(t0);
  return r;
}

}  // namespace fb::experiments
