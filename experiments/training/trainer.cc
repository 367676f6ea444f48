#include "experiments/training/trainer.h"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>

#include <nlohmann/json.hpp>

#include "engine/checkpoint/saver.h"
#include "engine/runtime/local_devices.h"
#include "experiments/training/model_saver.h"
#include "engine/trace/trace_writer.h"

namespace fb::experiments {
namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

// A Session on the devices of --devices (engine/runtime/local_devices.h); their descriptions
// go to *devices.
StatusOr<std::unique_ptr<Session>> MakeSession(const Model& model, const TrainOptions& o,
                                               std::vector<std::string>* devices) {
  SessionOptions so;
  ASSIGN_OR_RETURN(so.device_mgr, CreateDevicesForFlag(o.devices, o.threads));
  *devices = DescribeDevicesForMetrics(*so.device_mgr);
  so.placer = o.placer;
  so.placer_seed = o.placer_seed;
  so.passes = o.passes;
  so.default_passes = o.default_passes;
  ASSIGN_OR_RETURN(auto session, Session::Create(so));
  RETURN_IF_ERROR(session->Extend(model.scope.ToGraphDef()));
  return session;
}

// Restores the newest valid checkpoint when resuming and the directory holds one (sets
// first_step to the restored step), else runs the initializers (first_step 0).
Status InitOrResume(const TrainOptions& o, Session* session, const Model& model,
                    const CheckpointManager* ckpt, TrainResult* result) {
  result->first_step = 0;
  if (o.resume && ckpt != nullptr) {
    ASSIGN_OR_RETURN(RestoredCheckpoint restored, ckpt->RestoreLatest(session));
    for (const SkippedCheckpoint& s : restored.skipped)
      result->resume_warnings.push_back(s.reason.message());
    if (restored.found) {
      std::vector<Tensor> out;
      RETURN_IF_ERROR(session->Run({}, {model.step + ":0"}, {}, &out));
      result->first_step = out[0].scalar<int64_t>();
      result->resumed_from = restored.path;
      return Status::OK();
    }
  }
  std::vector<Tensor> none;
  return session->Run({}, {}, {model.init}, &none);
}

nlohmann::json ConfigJson(const TrainOptions& o) {
  const ModelOptions& m = o.model_options;
  return {{"model", o.model},         {"epochs", o.epochs},
          {"batch_size", m.batch_size}, {"optimizer", m.optimizer},
          {"learning_rate", m.learning_rate}, {"seed", m.seed},
          {"threads", o.threads},     {"hidden_units", m.hidden_units},
          {"resume", o.resume},       {"devices", o.devices},
          {"placer", o.placer},       {"passes", o.passes},
          {"default_passes", o.default_passes}, {"placer_seed", o.placer_seed}};
}

// Writes the trace: the graph, every traced step's node executions, per-step totals and the
// loss curve of every step.
class TraceRecorder {
 public:
  static StatusOr<std::unique_ptr<TraceRecorder>> Create(const TrainOptions& o,
                                                         const Session& session) {
    auto r = std::unique_ptr<TraceRecorder>(new TraceRecorder);
    if (o.trace_path.empty()) return r;
    TraceMetadata meta = o.trace_metadata;
    meta.seed = o.model_options.seed;
    meta.config_json = ConfigJson(o).dump();
    ASSIGN_OR_RETURN(r->writer_, TraceWriter::Create(o.trace_path, meta));
    RETURN_IF_ERROR(r->writer_->AddGraph(session.graph()));
    return r;
  }
  bool enabled() const { return writer_ != nullptr; }
  Status Record(int64_t step, const RunMetadata& md, bool traced, double loss, int64_t start_ns,
                int64_t end_ns) {
    if (!writer_) return Status::OK();
    if (traced) {
      RETURN_IF_ERROR(writer_->AddRunMetadata(step, md, loss));
    } else {
      StepTotals totals;
      totals.start_ns = start_ns;
      totals.end_ns = end_ns;
      totals.loss = loss;
      RETURN_IF_ERROR(writer_->AddStep(step, {}, totals));
    }
    return writer_->AddMetric(step, "loss", loss);
  }
  Status Finish(int64_t step, double test_accuracy) {
    if (!writer_) return Status::OK();
    if (test_accuracy >= 0) RETURN_IF_ERROR(writer_->AddMetric(step, "test_accuracy", test_accuracy));
    return writer_->Close();
  }

 private:
  TraceRecorder() = default;
  std::unique_ptr<TraceWriter> writer_;
};

// A dataset name unique to this Train call.
std::string RegisterTrainSet(std::shared_ptr<const datasets::Dataset> train) {
  static std::atomic<int64_t> counter{0};
  return "train/" + std::to_string(counter++) + "/" + train->name;
}

Status CheckOptions(const TrainOptions& o, const datasets::Dataset& train) {
  if (o.epochs < 1) return InvalidArgument("epochs must be >= 1, got ", o.epochs);
  if (o.threads < 1) return InvalidArgument("threads must be >= 1, got ", o.threads);
  if (train.size() < o.model_options.batch_size * o.model_options.num_shards) {
    return InvalidArgument("dataset '", train.name, "' has ", train.size(),
                           " examples, fewer than one batch of ", o.model_options.batch_size);
  }
  if (o.eval_batch_size < 1) return InvalidArgument("eval batch size must be >= 1");
  return Status::OK();
}

// Whether a periodic checkpoint is due after `step` (global, counted from 1).
bool CheckpointDue(const CheckpointEvery& every, int64_t step, Clock::time_point* last) {
  if (every.steps > 0) return step % every.steps == 0;
  if (every.seconds > 0 && SecondsSince(*last) >= every.seconds) {
    *last = Clock::now();
    return true;
  }
  return false;
}

struct Loop {
  const TrainOptions& o;
  Session* session;
  const Model& model;
  const CheckpointManager* ckpt;
  TraceRecorder* trace;
  const ProgressFn& progress;
};

// Runs steps [first_step, last_step) and records them in `result`.
Status RunSteps(const Loop& l, int64_t first_step, int64_t last_step, int64_t steps_per_epoch,
                TrainResult* result) {
  const Clock::time_point start = Clock::now();
  Clock::time_point last_ckpt = start;
  for (int64_t step = first_step; step < last_step; ++step) {
    const int64_t n = step - first_step;
    const bool traced = l.trace->enabled() && n >= 1 && n <= l.o.trace_steps;
    RunOptions ro;
    ro.trace = traced;
    RunMetadata md;
    std::vector<Tensor> out;
    const int64_t start_ns = NowNs();
    const Clock::time_point t0 = Clock::now();
    RETURN_IF_ERROR(l.session->Run(ro, {}, {l.model.loss}, {l.model.train_op}, &out, &md));
    result->step_ms.push_back(SecondsSince(t0) * 1e3);
    const double loss = out[0].scalar<float>();
    result->losses.push_back(loss);
    RETURN_IF_ERROR(l.trace->Record(step, md, traced, loss, start_ns, NowNs()));
    if (l.ckpt && CheckpointDue(l.o.checkpoint_every, step + 1, &last_ckpt)) {
      RETURN_IF_ERROR(l.ckpt->Save(l.session, step + 1).status());
    }
    if (l.progress) {
      l.progress({step + 1, result->total_steps, steps_per_epoch, loss, SecondsSince(start), n + 1});
    }
  }
  return Status::OK();
}

StatusOr<std::vector<Tensor>> FetchVariables(Session* session, const Model& model) {
  std::vector<std::string> names;
  for (const ModelVariable& v : model.variables) names.push_back(v.name + ":0");
  std::vector<Tensor> out;
  RETURN_IF_ERROR(session->Run({}, names, {}, &out));
  // Copies into the default allocator: the Session's device allocator dies with the Session.
  for (Tensor& t : out) t = t.DeepCopy();
  return out;
}

}  // namespace

StatusOr<CheckpointEvery> ParseCheckpointEvery(const std::string& text) {
  CheckpointEvery every;
  const bool seconds = !text.empty() && text.back() == 's';
  const std::string number = seconds ? text.substr(0, text.size() - 1) : text;
  size_t used = 0;
  try {
    if (seconds) every.seconds = std::stod(number, &used);
    else every.steps = std::stoll(number, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  // std::stod also accepts "nan" and "inf": an interval that never comes due.
  if (number.empty() || used != number.size() || !std::isfinite(every.seconds) ||
      every.seconds < 0 || every.steps < 0 ||
      (every.seconds == 0 && every.steps == 0)) {
    return InvalidArgument("checkpoint interval '", text,
                           "': expected a positive number of steps (500) or seconds (30s)");
  }
  return every;
}

double TrainResult::MedianStepMs() const {
  if (step_ms.empty()) return 0;
  std::vector<double> v = step_ms;
  std::nth_element(v.begin(), v.begin() + v.size() / 2, v.end());
  return v[v.size() / 2];
}

StatusOr<double> Evaluate(Session* session, const Model& model, const datasets::Dataset& data,
                          int64_t batch_size) {
  double correct = 0;
  for (int64_t begin = 0; begin < data.size(); begin += batch_size) {
    const int64_t end = std::min(begin + batch_size, data.size());
    std::vector<Tensor> out;
    RETURN_IF_ERROR(session->Run({{model.images, data.images.Slice(begin, end)},
                                  {model.labels, data.labels.Slice(begin, end)}},
                                 {model.num_correct}, {}, &out));
    correct += out[0].scalar<float>();
  }
  return correct / static_cast<double>(data.size());
}

StatusOr<TrainResult> Train(const TrainOptions& o, std::shared_ptr<const datasets::Dataset> train,
                            std::shared_ptr<const datasets::Dataset> test,
                            const ProgressFn& progress) {
  const Clock::time_point t0 = Clock::now();
  if (!train) return InvalidArgument("no training dataset");
  RETURN_IF_ERROR(CheckOptions(o, *train));
  if (test && test->image_shape() != train->image_shape()) {
    return InvalidArgument("test set '", test->name, "' has images of shape ",
                           TensorShape(test->image_shape()).DebugString(), ", training set '",
                           train->name, "' has ", TensorShape(train->image_shape()).DebugString(),
                           ": both must have the same image shape");
  }
  ModelOptions mo = o.model_options;
  mo.dataset = RegisterTrainSet(train);
  mo.image_shape = train->image_shape();
  mo.num_classes = train->num_classes;
  RETURN_IF_ERROR(datasets::DatasetRegistry::Global()->Register(mo.dataset, train));
  struct Unregister {
    std::string name;
    ~Unregister() { datasets::DatasetRegistry::Global()->Unregister(name); }
  } unregister{mo.dataset};

  ASSIGN_OR_RETURN(Model model, BuildModel(o.model, mo));
  std::unique_ptr<Saver> saver;
  std::unique_ptr<CheckpointManager> ckpt;
  if (!o.checkpoint_dir.empty()) {
    ASSIGN_OR_RETURN(saver, CreateModelSaver(model));
    ckpt = std::make_unique<CheckpointManager>(saver.get(), o.checkpoint_dir, o.keep_checkpoints);
  }
  TrainResult result;
  ASSIGN_OR_RETURN(auto session, MakeSession(model, o, &result.devices));
  const int64_t steps_per_epoch = train->size() / (mo.batch_size * mo.num_shards);
  result.total_steps = steps_per_epoch * o.epochs;
  RETURN_IF_ERROR(InitOrResume(o, session.get(), model, ckpt.get(), &result));
  int64_t last_step = result.total_steps;
  if (o.max_steps >= 0) last_step = std::min(last_step, result.first_step + o.max_steps);
  last_step = std::max(last_step, result.first_step);

  ASSIGN_OR_RETURN(auto trace, TraceRecorder::Create(o, *session));
  Loop loop{o, session.get(), model, ckpt.get(), trace.get(), progress};
  RETURN_IF_ERROR(RunSteps(loop, result.first_step, last_step, steps_per_epoch, &result));
  result.steps = last_step;
  if (ckpt && last_step > result.first_step) {
    RETURN_IF_ERROR(ckpt->Save(session.get(), last_step).status());
  }
  if (test) {
    ASSIGN_OR_RETURN(result.test_accuracy, Evaluate(session.get(), model, *test, o.eval_batch_size));
  }
  RETURN_IF_ERROR(trace->Finish(last_step, result.test_accuracy));
  for (const ModelVariable& v : model.variables) result.variable_names.push_back(v.name);
  ASSIGN_OR_RETURN(result.final_variables, FetchVariables(session.get(), model));
  result.wall_s = SecondsSince(t0);
  return result;
}

}  // namespace fb::experiments
