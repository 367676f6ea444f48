#pragma once
// The C++ graph-building API (whitepaper section 2, Figure 1), after TensorFlow's cc/framework:
// a Scope carries the graph being built, a name prefix, a device request and control
// dependencies; an Output names one tensor of a node. Errors stick to the Scope: once an op fails
// to build, later ops are skipped and Scope::status() reports the first error (naming the node).
//
//   Scope root = Scope::NewRootScope();
//   auto x = ops::Placeholder(root.WithOpName("x"), DataType::kFloat);
//   auto y = ops::Relu(root, ops::Add(root, ops::MatMul(root, w, x), b));
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/graph/node_builder.h"

namespace fb {

// One tensor: output `index` of `node`.
class Output {
 public:
  Output() = default;
  Output(Node* node, int index = 0) : node_(node), index_(index) {}  // NOLINT
  Output(NodeOut o) : node_(o.node), index_(o.index) {}               // NOLINT
  Node* node() const { return node_; }
  int index() const { return index_; }
  bool valid() const { return node_ != nullptr; }
  DataType type() const { return node_ ? node_->output_type(index_) : DataType::kInvalid; }
  // "name:index", the form feeds and fetches use.
  std::string name() const;
  operator NodeOut() const { return {node_, index_}; }  // NOLINT

 private:
  Node* node_ = nullptr;
  int index_ = 0;
};

class Scope {
 public:
  static Scope NewRootScope();
  // A root scope adding nodes to `g`, which the caller owns and keeps alive (autodiff hooks that
  // extend graphs they did not build).
  static Scope ForGraph(Graph* g);
  // Child scope: names get the prefix "name/".
  Scope NewSubScope(const std::string& name) const;
  // The next op gets exactly this name (under the prefix).
  Scope WithOpName(const std::string& name) const;
  Scope WithDevice(const std::string& device) const;
  Scope WithControlDependencies(const std::vector<Output>& deps) const;
  Scope WithControlDependencies(const std::vector<Node*>& deps) const;

  Graph* graph() const { return graph_.get(); }
  std::shared_ptr<Graph> shared_graph() const { return graph_; }
  bool ok() const { return status_->ok(); }
  Status status() const { return *status_; }
  void UpdateStatus(const Status& s) const;
  // A unique node name: the op name if WithOpName was used, else `default_name`, made unique.
  std::string GetUniqueName(const std::string& default_name) const;
  const std::string& device() const { return device_; }
  const std::string& prefix() const { return prefix_; }  // "" or "a/b/"
  const std::vector<Node*>& control_deps() const { return control_deps_; }
  GraphDef ToGraphDef() const { return graph_->ToGraphDef(); }

 private:
  Scope() = default;
  std::shared_ptr<Graph> graph_;
  std::shared_ptr<Status> status_;
  std::string prefix_;
  std::string op_name_;
  std::string device_;
  std::vector<Node*> control_deps_;
};

namespace ops {

// Adds a node of any registered op: inputs wired in order (type attrs inferred), attrs given,
// the scope's device and control dependencies applied. Returns the node (nullptr on error, with
// the error recorded in the scope).
Node* AddOp(const Scope& scope, const std::string& op, const std::vector<Output>& inputs,
            const AttrMap& attrs = {});
// Same for ops with a list input ("N * T") at `list_arg`.
Node* AddOpWithList(const Scope& scope, const std::string& op,
                    const std::vector<std::vector<Output>>& args, const AttrMap& attrs = {});
// Output 0 of AddOp.
Output Op(const Scope& scope, const std::string& op, const std::vector<Output>& inputs,
          const AttrMap& attrs = {});

}  // namespace ops
}  // namespace fb
