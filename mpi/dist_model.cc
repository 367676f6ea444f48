#include "mpi/dist_model.h"

#include <algorithm>
#include <cmath>

#include "datasets/fashion_mnist.h"
#include "datasets/synthetic.h"
#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/state_ops.h"
#include "experiments/models/layers.h"
#include "experiments/models/models.h"
#include "mpi/linear_model.h"

namespace fb::mpi {

namespace {

class LinearDistModel : public DistModel {
 public:
  explicit LinearDistModel(int features) { model_.features = features; }
  ModelFns Fns() const override { return model_.Fns(); }
  Feeds ReplicaFeeds(int replica, int64_t step, int shard, int, int batch) const override {
    return model_.Feeds(replica, model_.Batch(step, int64_t{shard} * batch, int64_t{shard + 1} * batch));
  }
  StatusOr<std::map<std::string, double>> Evaluate(
      const RunFn& run, const std::vector<std::string>& variable_values) const override {
    std::vector<Tensor> v;
    RETURN_IF_ERROR(run({}, variable_values, {}, &v));
    return std::map<std::string, double>{{"loss", model_.Loss(v[0], v[1], model_.Batch(-1, 0, 1024))}};
  }

 private:
  LinearRegression model_;
};

// A registered image classifier whose Variables are built once and read by every replica.
class ClassifierDistModel : public DistModel {
 public:
  ClassifierDistModel(experiments::ForwardFn forward, experiments::ModelOptions options,
                      std::shared_ptr<const datasets::Dataset> train,
                      std::shared_ptr<const datasets::Dataset> test)
      : forward_(std::move(forward)), o_(std::move(options)), train_(std::move(train)),
        test_(std::move(test)) {}

  ModelFns Fns() const override {
    ModelFns fns;
    fns.variables = [this](const Scope& s) {
      // The layers' Variable specs, from a forward pass built in a scratch graph.
      Scope scratch = Scope::NewRootScope();
      experiments::VariableStore probe(o_.seed);
      forward_(scratch, Images(scratch), o_, &probe);
      experiments::VariableStore store(o_.seed);
      s.UpdateStatus(scratch.status());
      s.UpdateStatus(store.CreateFromSpecs(s, probe.specs(), probe.non_trainable_specs()));
      return ModelVariables{store.variables(), store.initializers(),
                            store.non_trainable_variables()};
    };
    fns.loss = [this](const Scope& s, const ModelVariables& vars) -> ReplicaOutputs {
      Output labels = ops::Placeholder(s.WithOpName("labels"), DataType::kInt32, TensorShape{-1});
      experiments::VariableStore store =
          experiments::VariableStore::Reusing(vars.trainable, vars.non_trainable);
      Output logits = ops::Identity(s.WithOpName("logits"), forward_(s, Images(s), o_, &store));
      auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s.NewSubScope("xent"), logits, labels);
      return {ops::Mean(s.WithOpName("loss"), xent.loss, std::vector<int>{0}), store.updates()};
    };
    return fns;
  }

  Feeds ReplicaFeeds(int replica, int64_t step, int shard, int shards, int batch) const override {
    const int64_t batches = train_->size() / batch;
    const int64_t begin = ((step * shards + shard) % batches) * batch;
    return Slice(*train_, replica, begin, begin + batch);
  }

  StatusOr<std::map<std::string, double>> Evaluate(const RunFn& run,
                                                   const std::vector<std::string>&) const override {
    const int64_t n = std::min<int64_t>(test_->size(), 2000), chunk = 500;
    const std::string p = ReplicaPrefix(0);
    double loss = 0, correct = 0;
    for (int64_t begin = 0; begin < n; begin += chunk) {
      const int64_t end = std::min(n, begin + chunk);
      std::vector<Tensor> out;
      RETURN_IF_ERROR(run(Slice(*test_, 0, begin, end), {p + "/loss", p + "/logits"}, {}, &out));
      loss += out[0].data<float>()[0] * static_cast<double>(end - begin);
      const int64_t classes = out[1].dim_size(1);
      const float* logits = out[1].data<float>();
      const int32_t* labels = test_->labels.data<int32_t>() + begin;
      for (int64_t i = 0; i < end - begin; ++i) {
        const float* row = logits + i * classes;
        correct += std::max_element(row, row + classes) - row == labels[i];
      }
    }
    return std::map<std::string, double>{{"loss", loss / n}, {"accuracy", correct / n}};
  }

 private:
  Output Images(const Scope& s) const {
    TensorShape shape({-1});
    for (int64_t d : o_.image_shape) shape.AddDim(d);
    return ops::Placeholder(s.WithOpName("images"), DataType::kFloat, shape);
  }
  static Feeds Slice(const datasets::Dataset& d, int replica, int64_t begin, int64_t end) {
    auto part = d.Slice(begin, end);
    const std::string p = ReplicaPrefix(replica);
    return {{p + "/images", part->images}, {p + "/labels", part->labels}};
  }

  experiments::ForwardFn forward_;
  experiments::ModelOptions o_;
  std::shared_ptr<const datasets::Dataset> train_, test_;
};

}  // namespace

StatusOr<std::unique_ptr<DistModel>> MakeDistModel(const std::string& name, int features,
                                                   int64_t seed, int64_t batch,
                                                   const WordLmDistOptions& word_lm) {
  if (name == "linear") return std::unique_ptr<DistModel>(new LinearDistModel(features));
  if (IsWordLmDistModel(name)) return MakeWordLmDistModel(name, word_lm, seed);
  StatusOr<experiments::ForwardFn> forward = experiments::LookupForward(name);
  if (!forward.ok())
    return InvalidArgument("dist-train: unknown model '", name,
                           "' (linear, lenet, mlp, lstm_lm_word, lstm_lm_word_sampled, or a "
                           "registered image model such as alexnet)");
  experiments::ModelOptions o;
  o.seed = seed;
  if (name == "lenet" || name == "mlp") {
    ASSIGN_OR_RETURN(auto train, datasets::LoadMnistFormat(datasets::kFashionMnistDir, datasets::Split::kTrain));
    ASSIGN_OR_RETURN(auto test, datasets::LoadMnistFormat(datasets::kFashionMnistDir, datasets::Split::kTest));
    if (batch > train->size())
      return InvalidArgument("dist-train: --batch ", batch, " exceeds the ", train->size(),
                             " training examples of Fashion-MNIST (model ", name, ")");
    return std::unique_ptr<DistModel>(new ClassifierDistModel(*std::move(forward), o, train, test));
  }
  // Other image models (alexnet: 227x227x3, 1000 classes) do not take Fashion-MNIST's 28x28x1
  // images: their registered input shape and classes, on synthetic data (datasets/synthetic.h).
  ASSIGN_OR_RETURN(o, experiments::WithModelDefaults(name, o));
  datasets::SyntheticOptions d;
  d.image_shape = o.image_shape;
  d.num_classes = o.num_classes;
  d.seed = static_cast<uint64_t>(seed);
  d.num_examples = std::max(kSyntheticTrainExamples, batch);  // at least one whole batch
  int64_t example_bytes = 4;
  for (int64_t dim : d.image_shape) example_bytes *= dim;
  if (d.num_examples * example_bytes > kMaxSyntheticBytes)
    return InvalidArgument("dist-train: --batch ", batch, " of ", name, "'s synthetic images needs ",
                           d.num_examples * example_bytes, " bytes per rank, more than ",
                           kMaxSyntheticBytes);
  ASSIGN_OR_RETURN(auto train, datasets::MakeSyntheticDataset(d));
  d.split = 1;
  d.num_examples = kSyntheticTestExamples;
  ASSIGN_OR_RETURN(auto test, datasets::MakeSyntheticDataset(d));
  return std::unique_ptr<DistModel>(new ClassifierDistModel(*std::move(forward), o, train, test));
}

}  // namespace fb::mpi
