#pragma once
// Shape inference (the OpDef shape functions): computes output shapes of a node from its input
// shapes, attrs and, where known, constant input values. Results feed graph validation, the cost
// model (bytes and FLOPs per node, whitepaper 3.2.1) and the placer's memory estimates.
// A PartialShape of std::nullopt has unknown rank; a dimension of -1 is unknown.
#include <optional>
#include <string>
#include <vector>

#include "engine/framework/op_def.h"

namespace fb {

using PartialShape = std::optional<TensorShape>;
std::string PartialShapeString(const PartialShape& s);  // "[?,784]" or "<unknown>"

class InferenceContext {
 public:
  InferenceContext(std::string node_name, const OpDef& op, const AttrMap& attrs,
                   std::vector<PartialShape> inputs, std::vector<const Tensor*> input_tensors);

  const std::string& node_name() const { return node_name_; }
  int num_inputs() const { return static_cast<int>(inputs_.size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  const PartialShape& input(int i) const { return inputs_[i]; }
  // The value of input i if it is a constant known at graph time, else nullptr.
  const Tensor* input_tensor(int i) const { return input_tensors_[i]; }
  void set_output(int i, PartialShape s) { outputs_[i] = std::move(s); }
  const std::vector<PartialShape>& outputs() const { return outputs_; }

  template <typename T>
  Status GetAttr(const std::string& name, T* out) const {
    Status s = GetNodeAttr(attrs_, name, out);
    return s.ok() ? s : Error(s.message());
  }
  const AttrMap& attrs() const { return attrs_; }

  // InvalidArgument prefixed with "<Op> '<node>': ".
  template <typename... Args>
  Status Error(const Args&... args) const {
    return InvalidArgument(op_.name, " '", node_name_, "': ", args...);
  }
  // Checks that input i has the given rank (unknown rank passes). `what` names the input.
  Status WithRank(int i, int rank) const;
  Status WithRankAtLeast(int i, int rank) const;
  // Merges two dimensions: -1 unifies with anything; two known different values are an error.
  Status MergeDim(int64_t a, int64_t b, int64_t* out, const std::string& what) const;
  // NumPy broadcasting of two partial shapes.
  Status BroadcastShapes(const PartialShape& a, const PartialShape& b, PartialShape* out) const;

 private:
  std::string node_name_;
  const OpDef& op_;
  const AttrMap& attrs_;
  std::vector<PartialShape> inputs_;
  std::vector<const Tensor*> input_tensors_;
  std::vector<PartialShape> outputs_;
};

// Shape functions shared by many ops.
namespace shape_fns {
Status Unknown(InferenceContext* c);            // every output unknown
Status UnchangedShape(InferenceContext* c);     // output 0 = input 0
Status ScalarShape(InferenceContext* c);        // output 0 = []
Status BroadcastBinary(InferenceContext* c);    // output 0 = broadcast(input 0, input 1)
}  // namespace shape_fns

}  // namespace fb
