#pragma once
// The model registry: image classifiers built as dataflow graphs (whitepaper section 2) with
// loss, accuracy and optimizer nodes, shared by `flowbench train`, the MPI runtime (synchronous
// data parallelism, whitepaper 7) and the simulator, so all of them run the very same graph.
//
//   ModelOptions o;  o.dataset = "fashion-mnist/train";          // read by the input op (4.5)
//   ASSIGN_OR_RETURN(Model m, BuildModel("lenet", o));
//   ASSIGN_OR_RETURN(auto saver, CreateModelSaver(m));  // before Extend (model_saver.h)
//   RETURN_IF_ERROR(session->Extend(m.scope.ToGraphDef()));
//   session->Run({}, {}, {m.init}, nullptr);                       // once
//   session->Run({}, {m.loss}, {m.train_op}, &out);                // one training step
//   session->Run({{m.images, x}, {m.labels, y}}, {m.num_correct}, {}, &out);  // evaluation
//
// Models ("mlp", "lenet", "lstm_lm_word"...; see ModelNames):
//   mlp    Reshape to [batch, rows*cols*channels], Dense+ReLU for each of hidden_units (default
//          784-256-10), Dense logits.
//   lenet  LeNet-5 (LeCun et al. 1998) as in issue 3: conv 5x5x6 SAME + ReLU, maxpool 2,
//          conv 5x5x16 VALID + ReLU, maxpool 2, fc 120 + ReLU, fc 84 + ReLU, fc num_classes.
//   alexnet, overfeat, vgg_a, googlenet  the convnet-benchmarks models of OSDI'16 Table 1
//          (each in its own file, e.g. alexnet.cc; image shapes in their ModelDefaults).
//   lstm_lm_word  the word LSTM language model LSTM-512-512 of OSDI 6.4 (options.word_lm;
//          experiments/models/lstm_lm_word.h; variants lstm_lm_word_unrolled, _sampled, _basic): not
//          an image classifier but a ModelBodyFn. input/images and input/labels are int32
//          [batch, num_steps] token ids and next-token ids (always fed, no dataset); loss,
//          accuracy and num_correct are per token.
// Weights: He uniform before ReLUs, Glorot uniform for the logits, zero biases
// (experiments/models/layers.h). Everything is float; images NHWC float [batch, rows, cols, channels],
// labels int32 [batch].
//
// Nodes every model has (names fixed, so other modules may refer to them):
//   input/step               int64 Variable: the number of training steps taken (the input op's
//                            position; checkpointed with the weights, so a resumed run reads the
//                            batches an uninterrupted one would)
//   input/batch              DatasetBatch(input/step) when options.dataset is set, else the
//                            Placeholders input/images and input/labels
//   loss                     mean softmax cross-entropy of the batch (scalar)
//   accuracy, num_correct    fraction and count (float scalars) of correct argmax predictions
//   init                     NoOp running every initializer (weights, optimizer slots, step)
//   train                    NoOp: one optimizer step, then step += 1 (and, with kTrain, the
//                            update_non_trainable updates)
//   update_non_trainable     NoOp running the moving-average updates of the batch-norm layers
//                            (experiments/models/batch_norm.h); only in models that have them
#include <functional>
#include <string>
#include <vector>

#include "engine/client/scope.h"

namespace fb::experiments {

// kTrain: `train` applies the gradients the graph computes. kApplyFedGradients (synchronous data
// parallelism): the graph computes `gradients` as outputs, and `train` applies the tensors fed
// to `gradient_feeds` instead (e.g. gradients averaged over workers by an all-reduce).
enum class TrainMode { kTrain, kApplyFedGradients };

// Word-level language models (lstm_lm_word, experiments/models/lstm_lm_word.h). Defaults: the
// LSTM-512-512 of OSDI 6.4 (Fig 9) on a 40,000-word vocabulary; num_steps 20 and num_sampled as
// the reference code (rafaljozefowicz/lm) and OSDI. batch_size, optimizer, learning_rate and
// seed of ModelOptions apply; image_shape, num_classes, hidden_units and dataset do not.
struct WordLmOptions {
  int64_t vocab_size = 40000;     // V: token ids in [0, V); embedding rows and softmax classes
  int64_t num_steps = 20;         // T: tokens per example (unroll length); loss over all T
  int64_t embedding_size = 512;   // E: word embedding width (the LSTM input)
  int64_t lstm_cells = 512;       // C: LSTM state size
  int64_t projection_size = 512;  // P: LSTMP output r = (o * tanh(c)) W_proj; 0: none (P = C)
  std::string softmax = "full";   // "full" (V logits) or "sampled" (SampledSoftmaxLoss)
  int64_t num_sampled = 512;      // sampled softmax: candidates per step, in [1, V]
  bool unroll = false;            // true: T copies of the cell; false: one WhileLoop (4.4)
  // "block": TensorFlow's fused LSTMBlockCell op (+ the projection's MatMul) per step; "basic":
  // the cell as basic ops (MatMul, Split, Sigmoid, Tanh, Mul, Add), as TensorFlow's LSTMCell.
  // Same function and weights (experiments/models/lstm_cell.h).
  std::string cell = "block";
};

struct ModelOptions {
  std::vector<int64_t> hidden_units = {256};     // MLP hidden layers
  std::vector<int64_t> image_shape = {28, 28, 1};  // [rows, cols, channels]
  int64_t num_classes = 10;
  int64_t batch_size = 64;
  std::string optimizer = "adam";  // "sgd", "momentum" (0.9) or "adam" (TensorFlow defaults)
  double learning_rate = 0.001;
  double momentum = 0.9;
  int64_t seed = 1;  // weight initialisation and the input op's shuffling
  // Registered dataset (datasets/dataset.h) read by the DatasetBatch input op; "" for
  // Placeholders fed by the client.
  std::string dataset;
  bool shuffle = true;
  int64_t num_shards = 1;   // data parallelism: workers sharing each global batch
  int64_t shard_index = 0;  // this worker's slice
  TrainMode mode = TrainMode::kTrain;
  // true: layers build their training form (batch normalization normalizes with batch statistics
  // and the train op updates its moving averages). false: the inference form (moving
  // statistics, no updates; the train op then trains with the statistics frozen): build it to
  // evaluate a model restored from a checkpoint of the training form (same Variable names).
  bool training = true;
  WordLmOptions word_lm;  // lstm_lm_word only
};

struct ModelVariable {
  std::string name;  // Variable node name, e.g. "fc1/weights"
  TensorShape shape;
};

struct Model {
  std::string name;
  Scope scope = Scope::NewRootScope();  // owns the graph
  // Tensor names ("node:port"). images and labels may be fed (evaluation) even when they are
  // the input op's outputs.
  std::string images, labels, logits, loss, accuracy, num_correct;
  std::string step;      // Variable node "input/step"
  std::string init;      // target
  std::string train_op;  // target
  std::vector<ModelVariable> variables;     // trainable, in creation order
  std::vector<std::string> gradients;       // d loss / d variables[i] (tensor names)
  std::vector<std::string> gradient_feeds;  // kApplyFedGradients: Placeholders train applies
  // Non-trainable Variables (batch normalization's moving statistics), in creation order: set
  // by init and saved in checkpoints, never trained.
  std::vector<ModelVariable> non_trainable_variables;
  // Target running every update of the non-trainable Variables (moving averages of the batch
  // statistics of the batch fed or read in the same Run); "" when there are none. kTrain's train
  // op depends on it; with kApplyFedGradients run it together with the gradients.
  std::string update_op;
  // What one step consumes, for throughput: examples_per_step `example_unit`s per step
  // ("images": batch_size; "words": batch_size * num_steps for lstm_lm_word).
  int64_t examples_per_step = 0;
  std::string example_unit = "images";
};

// Builds model `name`. Errors: NotFound naming the model and listing the known ones;
// InvalidArgument for an unknown optimizer, a non-positive size, or graph-building errors
// (naming the node).
StatusOr<Model> BuildModel(const std::string& name, const ModelOptions& options);

// Names of the registered models, sorted.
std::vector<std::string> ModelNames();

// --- registry
class VariableStore;
// Builds the logits [batch, num_classes] from images [batch, rows, cols, channels], creating
// the trainable variables in `vars`.
using ForwardFn = std::function<Output(const Scope& scope, Output images, const ModelOptions& o,
                                       VariableStore* vars)>;
// A model that is not an image classifier (lstm_lm_word): creates its input Placeholders
// (named input/images and input/labels), its trainable Variables in `vars` and its metrics; sets
// m->images, labels, logits, accuracy, num_correct, examples_per_step and example_unit; returns
// the scalar loss. BuildModel adds input/step, gradients, train and init as for classifiers.
using ModelBodyFn = std::function<StatusOr<Output>(const Scope& root, const ModelOptions& o,
                                                   VariableStore* vars, Model* m)>;
// For ModelBodyFns: the nodes "accuracy" and "num_correct" (fraction and count of rows whose
// argmax of logits [n, classes] equals labels int32 [n]), named in m->accuracy, m->num_correct.
void AddAccuracyMetrics(const Scope& s, Output logits, Output labels, Model* m);
// The forward builder of model `name`; NotFound naming it and listing the known models;
// InvalidArgument for a model registered with a ModelBodyFn (it has no image forward pass).
StatusOr<ForwardFn> LookupForward(const std::string& name);
// What a model expects when the caller does not say: its input image shape [rows, cols, channels]
// and number of classes (e.g. alexnet {227, 227, 3} and 1000; lenet {28, 28, 1} and 10).
// Commands without a dataset of that shape (benchmark, sim, place) use these.
struct ModelDefaults {
  std::vector<int64_t> image_shape = {28, 28, 1};
  int64_t num_classes = 10;
};
// The defaults model `name` was registered with; NotFound as LookupForward.
StatusOr<ModelDefaults> LookupDefaults(const std::string& name);
// `options` with image_shape and num_classes replaced by model `name`'s defaults.
StatusOr<ModelOptions> WithModelDefaults(const std::string& name, ModelOptions options);

struct ModelRegistrar {
  ModelRegistrar(const std::string& name, ForwardFn forward, ModelDefaults defaults = {});
  ModelRegistrar(const std::string& name, ModelBodyFn body, ModelDefaults defaults = {});
};
// FB_REGISTER_MODEL("lenet", LeNetForward) or, with defaults,
// FB_REGISTER_MODEL("alexnet", AlexNetForward, ModelDefaults{{227, 227, 3}, 1000}), or a whole
// model: FB_REGISTER_MODEL("lstm_lm_word", ModelBodyFn(BuildWordLm)).
#define FB_REGISTER_MODEL(name, ...) \
  static ::fb::experiments::ModelRegistrar FB_CONCAT(fb_model_, __COUNTER__)(name, __VA_ARGS__)

}  // namespace fb::experiments
