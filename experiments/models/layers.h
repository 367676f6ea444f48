#pragma once
// Layers for the model builders (experiments/models/models.h): trainable Variables with their
// initializers, fully connected and convolution layers. Weight initialisation follows common
// practice:
//   He (Kaiming) uniform  U(-a, a), a = sqrt(6 / fan_in)            for layers followed by ReLU
//                         (He et al., ICCV 2015: keeps activation variance through ReLUs)
//   Glorot (Xavier) uniform  U(-a, a), a = sqrt(6 / (fan_in + fan_out))  for the logits layer
//                         (Glorot and Bengio, AISTATS 2010)
//   biases zero.
// fan_in/fan_out of a conv filter [kh, kw, in, out] are kh*kw*in and kh*kw*out. Each weight
// draws from RandomUniform keyed by (seed, index of the layer), so a model is reproducible from
// its seed. Variables are float.
#include <string>
#include <vector>

#include "engine/client/nn_ops.h"
#include "engine/client/scope.h"

namespace fb::experiments {

enum class InitKind { kHeUniform, kGlorotUniform };

// What a layer asked for: the Variable's full node name, shape and initialisation (Weight:
// `init` with the fans; Bias and Filled: every element `fill`).
struct VariableSpec {
  std::string name;  // e.g. "conv1/weights"
  TensorShape shape;
  bool zeros = false;  // constant-initialized (Bias, Filled): every element is `fill`
  int64_t fan_in = 0, fan_out = 0;
  InitKind init = InitKind::kHeUniform;
  float fill = 0;  // the constant of Bias (0) or Filled (e.g. 1 for batch norm's scale)
};

// The trainable Variables of a model, in creation order, and the Assigns that initialize them.
// It also holds the model's non-trainable Variables (batch normalization's moving statistics:
// initialized by the Assigns in initializers() and saved by the model Saver like every Variable,
// but not in variables(), so they get no gradient and no optimizer slot), the update ops the
// train op must run (their moving averages), and whether layers build their training or
// inference form (training()).
// Two further modes serve data parallelism (mpi/dist_model.h), where the Variables live
// once on the parameter servers and every replica builds its own forward pass:
//   CreateFromSpecs  creates Variables (and initializers) from specs recorded by another store,
//                    with the same names and random streams as a single-process model
//                    (specs() for the trainable Variables, non_trainable_specs() for the
//                    others);
//   Reusing          a store whose Weight/Bias return the given trainable Variables and whose
//                    NonTrainable returns the given non-trainable ones, each list in order,
//                    instead of creating new ones (each layer reads a trainable Variable through
//                    its own "<name>/read"; its moving-average updates go to the given Variable,
//                    so every replica updates the shared statistics, as TensorFlow's
//                    replicated training ran each worker's UPDATE_OPS).
class VariableStore {
 public:
  explicit VariableStore(int64_t seed) : seed_(seed) {}
  static VariableStore Reusing(std::vector<Output> variables,
                               std::vector<Output> non_trainable = {});
  // Creates one Variable per spec under `root` (names as in the specs): trainable ones from
  // `specs`, non-trainable ones (each element its spec's `fill`) from `non_trainable`. Returns
  // the scope's status.
  Status CreateFromSpecs(const Scope& root, const std::vector<VariableSpec>& specs,
                         const std::vector<VariableSpec>& non_trainable = {});
  // A float Variable `name` (under `s`'s prefix) of `shape` initialized by `init` with the given
  // fans. Returns its value read once per step ("<name>/read"), what layers compute with.
  Output Weight(const Scope& s, const std::string& name, const TensorShape& shape, int64_t fan_in,
                int64_t fan_out, InitKind init);
  // A float Variable of `shape` initialized to zeros; returns "<name>/read" as Weight.
  Output Bias(const Scope& s, const std::string& name, const TensorShape& shape);
  // A trainable float Variable of `shape` with every element `value` (batch norm's scale: 1);
  // returns "<name>/read" as Weight.
  Output Filled(const Scope& s, const std::string& name, const TensorShape& shape, float value);

  // A non-trainable float Variable `name` (under `s`'s prefix) of `shape`, every element `value`
  // at init. Returns the Variable's Ref output: read it through ops::Identity, update it with
  // Assign/AssignSub and register the update with AddUpdate. In Reusing mode: the next given
  // non-trainable Variable (InvalidArgument naming the Variable in `s`, and an invalid Output,
  // when none is left or its shape differs).
  Output NonTrainable(const Scope& s, const std::string& name, const TensorShape& shape,
                      float value);
  // An op (an Assign to a non-trainable Variable) that each training step must run: BuildModel
  // makes the train op depend on every update.
  void AddUpdate(Output update) { updates_.push_back(update); }
  const std::vector<Output>& non_trainable_variables() const { return non_trainable_; }
  // What every NonTrainable call asked for, in order (zeros = true, `fill` the initial value).
  const std::vector<VariableSpec>& non_trainable_specs() const { return non_trainable_specs_; }
  const std::vector<Output>& updates() const { return updates_; }
  // true (default): layers build their training form (batch normalization normalizes with the
  // batch's statistics and updates its moving averages); false: the inference form (moving
  // statistics, no updates). BuildModel sets it from ModelOptions::training.
  bool training() const { return training_; }
  void set_training(bool training) { training_ = training; }

  // The Variables' Ref outputs (what optimizers and Savers take).
  const std::vector<Output>& variables() const { return variables_; }
  const std::vector<Output>& initializers() const { return initializers_; }
  // What every Weight/Bias call asked for, in order.
  const std::vector<VariableSpec>& specs() const { return specs_; }

 private:
  Output Add(const Scope& s, const std::string& name, const TensorShape& shape, Output value);
  // Reusing mode: the next given Variable, read through "<name>/read" under `s`.
  Output Reuse(const Scope& s, const std::string& name, const TensorShape& shape);
  // Reusing mode: given[index] checked against `shape`; an invalid Output with the error in `s`
  // (naming the Variable `name` under `s`) when `given` has no such entry or the shape differs.
  static Output NextGiven(const Scope& s, const std::string& name, const TensorShape& shape,
                          const std::vector<Output>& given, size_t index);
  int64_t seed_;
  int64_t next_stream_ = 1;
  std::vector<Output> variables_, initializers_;
  std::vector<VariableSpec> specs_;
  std::vector<Output> non_trainable_, updates_;
  std::vector<VariableSpec> non_trainable_specs_;
  bool training_ = true;
  bool reusing_ = false;
  std::vector<Output> reuse_, reuse_non_trainable_;
};

enum class Activation { kNone, kRelu };

// x [batch, in] -> activation(x * w + b) [batch, units]; w [in, units] ("<name>/weights"),
// b [units] ("<name>/biases"). He init with ReLU, Glorot without.
Output Dense(const Scope& s, VariableStore* vars, const std::string& name, Output x, int64_t in,
             int64_t units, Activation activation);

// A convolution layer's geometry: filter [kernel_rows, kernel_cols, in, filters] (HWIO), strides,
// padding "SAME" or "VALID", and whether a bias [filters] is added (false before batch
// normalization, whose offset plays that role).
struct Conv2DSpec {
  int64_t kernel_rows = 1, kernel_cols = 1;
  int64_t stride_rows = 1, stride_cols = 1;
  int64_t in = 0, filters = 0;
  std::string padding = "SAME";
  bool bias = true;
};

// x NHWC [batch, rows, cols, in] -> activation(Conv2D(x, w, strides, padding) [+ b]);
// w "<name>/weights" HWIO, b "<name>/biases" [filters]. He init with ReLU, Glorot without
// (fans kernel_rows * kernel_cols * in and * filters).
Output Conv2DLayer(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                   const Conv2DSpec& spec, Activation activation);

// The square, stride-1 case: Conv2DSpec{kernel, kernel, 1, 1, in, filters, padding, true}.
Output Conv2DLayer(const Scope& s, VariableStore* vars, const std::string& name, Output x,
                   int64_t kernel, int64_t in, int64_t filters, const std::string& padding,
                   Activation activation);

}  // namespace fb::experiments
