#include "experiments/models/models.h"

#include <map>
#include <memory>
#include <mutex>

#include "datasets/dataset_client_ops.h"
#include "engine/autodiff/gradients.h"
#include "engine/client/array_ops.h"
#include "engine/client/math_ops.h"
#include "engine/client/nn_ops.h"
#include "engine/client/optimizer.h"
#include "engine/client/state_ops.h"
#include "experiments/models/layers.h"

namespace fb::experiments {
namespace {

struct Registered {
  ForwardFn forward;
  ModelDefaults defaults;
};

std::map<std::string, Registered>& Registry() {
  static auto* registry = new std::map<std::string, Registered>;
  return *registry;
}

// The registry entry of `name`, or NotFound naming it and listing the known models.
StatusOr<const Registered*> Lookup(const std::string& name) {
  auto it = Registry().find(name);
  if (it != Registry().end()) return &it->second;
  std::string known;
  for (const std::string& n : ModelNames()) known += (known.empty() ? "" : ", ") + n;
  return NotFound("unknown model '", name, "' (known: ", known, ")");
}

StatusOr<std::unique_ptr<Optimizer>> MakeOptimizer(const ModelOptions& o) {
  if (o.learning_rate <= 0) {
    return InvalidArgument("learning rate must be > 0, got ", o.learning_rate);
  }
  if (o.optimizer == "sgd") return std::unique_ptr<Optimizer>(new GradientDescentOptimizer(o.learning_rate));
  if (o.optimizer == "momentum") {
    return std::unique_ptr<Optimizer>(new MomentumOptimizer(o.learning_rate, o.momentum));
  }
  if (o.optimizer == "adam") return std::unique_ptr<Optimizer>(new AdamOptimizer(o.learning_rate));
  return InvalidArgument("unknown optimizer '", o.optimizer, "' (expected sgd, momentum or adam)");
}

Status ValidateOptions(const ModelOptions& o) {
  if (o.image_shape.size() != 3) {
    return InvalidArgument("image_shape must be [rows, cols, channels], got ", o.image_shape.size(),
                           " dimensions");
  }
  for (int64_t d : o.image_shape) {
    if (d < 1) return InvalidArgument("image dimensions must be >= 1, got ", d);
  }
  for (int64_t h : o.hidden_units) {
    if (h < 1) return InvalidArgument("hidden layer sizes must be >= 1, got ", h);
  }
  if (o.num_classes < 2) return InvalidArgument("num_classes must be >= 2, got ", o.num_classes);
  if (o.batch_size < 1) return InvalidArgument("batch size must be >= 1, got ", o.batch_size);
  return Status::OK();
}

// input/step and either input/batch (the input op) or the input Placeholders.
// Returns the step Variable.
Output BuildInput(const Scope& root, const ModelOptions& o, Model* m, Output* images,
                  Output* labels, std::vector<Output>* initializers) {
  Scope s = root.NewSubScope("input");
  Output step = ops::Variable(s.WithOpName("step"), TensorShape{}, DataType::kInt64);
  initializers->push_back(
      ops::Assign(s.WithOpName("step/Assign"), step, ops::Const(s, int64_t{0})));
  m->step = step.node() ? step.node()->name() : "";
  if (!o.dataset.empty()) {
    ops::DatasetBatchAttrs a;
    a.dataset = o.dataset;
    a.batch_size = o.batch_size;
    a.image_shape = o.image_shape;
    a.seed = o.seed;
    a.shuffle = o.shuffle;
    a.num_shards = o.num_shards;
    a.shard_index = o.shard_index;
    auto batch = ops::DatasetBatch(s.WithOpName("batch"), step, a);
    *images = batch.images;
    *labels = batch.labels;
  } else {
    TensorShape shape({-1});
    for (int64_t d : o.image_shape) shape.AddDim(d);
    *images = ops::Placeholder(s.WithOpName("images"), DataType::kFloat, shape);
    *labels = ops::Placeholder(s.WithOpName("labels"), DataType::kInt32, TensorShape({-1}));
  }
  return step;
}

// loss, accuracy and num_correct.
void BuildMetrics(const Scope& s, Output logits, Output labels, Model* m, Output* loss) {
  auto xent = ops::SparseSoftmaxCrossEntropyWithLogits(s.NewSubScope("xent"), logits, labels);
  *loss = ops::Mean(s.WithOpName("loss"), xent.loss, std::vector<int>{0});
  Scope ms = s.NewSubScope("metrics");
  Output predicted = ops::ArgMax(ms, logits, 1, DataType::kInt32);
  Output correct = ops::Cast(ms, ops::Equal(ms, predicted, labels), DataType::kFloat);
  Output accuracy = ops::Mean(s.WithOpName("accuracy"), correct, std::vector<int>{0});
  Output num_correct = ops::Sum(s.WithOpName("num_correct"), correct, std::vector<int>{0});
  m->loss = loss->name();
  m->accuracy = accuracy.name();
  m->num_correct = num_correct.name();
}

// Gradients of the loss, their application (computed or fed) and the step increment.
Status BuildTraining(const Scope& root, const ModelOptions& o, Output loss, Output step,
                     const VariableStore& vars, Model* m, std::vector<Output>* initializers) {
  ASSIGN_OR_RETURN(std::unique_ptr<Optimizer> opt, MakeOptimizer(o));
  std::vector<NodeOut> xs(vars.variables().begin(), vars.variables().end());
  std::vector<NodeOut> grads;
  RETURN_IF_ERROR(AddSymbolicGradients(root.graph(), {loss}, xs, {}, &grads, "gradients",
                                       /*gate_gradients=*/true));  // as optimizers do
  std::vector<std::pair<Output, Output>> pairs;
  for (size_t i = 0; i < grads.size(); ++i) {
    Output g(grads[i]);
    m->gradients.push_back(g.name());
    if (o.mode == TrainMode::kApplyFedGradients) {
      g = ops::Placeholder(root.WithOpName("apply/grad_" + std::to_string(i)), DataType::kFloat,
                           m->variables[i].shape);
      m->gradient_feeds.push_back(g.name());
    }
    pairs.emplace_back(g, vars.variables()[i]);
  }
  Node* apply = opt->ApplyGradients(root, pairs);
  if (apply == nullptr) return root.status();
  Output increment = ops::AssignAdd(
      root.WithOpName("input/step_increment").WithControlDependencies(std::vector<Node*>{apply}),
      step, ops::Const(root, int64_t{1}));
  std::vector<Output> train_deps = {increment};
  if (!vars.updates().empty()) {
    Node* updates = ops::Group(root.WithOpName("update_non_trainable"), vars.updates());
    if (updates == nullptr) return root.status();
    m->update_op = updates->name();
    if (o.mode == TrainMode::kTrain) train_deps.push_back(Output(updates));
  }
  Node* train = ops::Group(root.WithOpName("train"), train_deps);
  if (train) m->train_op = train->name();
  initializers->insert(initializers->end(), opt->initializers().begin(), opt->initializers().end());
  return root.status();
}

}  // namespace

ModelRegistrar::ModelRegistrar(const std::string& name, ForwardFn forward,
                               ModelDefaults defaults) {
  FB_CHECK(Registry().emplace(name, Registered{std::move(forward), std::move(defaults)}).second)
      << "model " << name << " twice";
}

std::vector<std::string> ModelNames() {
  std::vector<std::string> names;
  for (const auto& [name, entry] : Registry()) names.push_back(name);
  return names;
}

StatusOr<ForwardFn> LookupForward(const std::string& name) {
  ASSIGN_OR_RETURN(const Registered* entry, Lookup(name));
  return entry->forward;
}

StatusOr<ModelDefaults> LookupDefaults(const std::string& name) {
  ASSIGN_OR_RETURN(const Registered* entry, Lookup(name));
  return entry->defaults;
}

StatusOr<ModelOptions> WithModelDefaults(const std::string& name, ModelOptions options) {
  ASSIGN_OR_RETURN(ModelDefaults d, LookupDefaults(name));
  options.image_shape = d.image_shape;
  options.num_classes = d.num_classes;
  return options;
}

StatusOr<Model> BuildModel(const std::string& name, const ModelOptions& o) {
  ASSIGN_OR_RETURN(ForwardFn forward, LookupForward(name));
  RETURN_IF_ERROR(ValidateOptions(o));
  Model m;
  m.name = name;
  const Scope& root = m.scope;
  Output images, labels;
  std::vector<Output> initializers;
  Output step = BuildInput(root, o, &m, &images, &labels, &initializers);
  VariableStore vars(o.seed);
  vars.set_training(o.training);
  Output logits = forward(root, images, o, &vars);
  RETURN_IF_ERROR(root.status());
  m.images = images.name();
  m.labels = labels.name();
  m.logits = logits.name();
  for (const Output& v : vars.variables()) {
    m.variables.push_back({v.node()->name(), v.node()->def().attrs.at("shape").get<TensorShape>()});
  }
  for (const Output& v : vars.non_trainable_variables()) {
    m.non_trainable_variables.push_back(
        {v.node()->name(), v.node()->def().attrs.at("shape").get<TensorShape>()});
  }
  Output loss;
  BuildMetrics(root, logits, labels, &m, &loss);
  RETURN_IF_ERROR(root.status());
  RETURN_IF_ERROR(BuildTraining(root, o, loss, step, vars, &m, &initializers));
  initializers.insert(initializers.end(), vars.initializers().begin(), vars.initializers().end());
  Node* init = ops::Group(root.WithOpName("init"), initializers);
  RETURN_IF_ERROR(root.status());
  m.init = init->name();
  return m;
}

}  // namespace fb::experiments
