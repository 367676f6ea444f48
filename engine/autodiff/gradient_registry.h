#pragma once
// Gradient functions, registered per op (whitepaper 4.1). A gradient function receives the
// forward node and the gradients flowing into each of its outputs, and adds nodes to the graph
// computing the gradient with respect to each of its inputs.
//
//   REGISTER_GRADIENT(MatMul, MatMulGrad);
//
// Outputs that the cost does not depend on arrive as zeros (ZerosLike); an input that gets no
// gradient (an integer index, say) returns an invalid NodeOut.
#include <functional>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "engine/graph/node_builder.h"

namespace fb {

class GradContext {
 public:
  GradContext(Graph* g, Node* node, std::string scope) : g_(g), node_(node), scope_(std::move(scope)) {}
  Graph* graph() const { return g_; }
  const Node* node() const { return node_; }
  // The tensor wired to data input i of the forward node.
  NodeOut input(int i) const;
  // Output i of the forward node.
  NodeOut output(int i) const { return {node_, i}; }
  template <typename T>
  Status GetAttr(const std::string& name, T* out) const { return GetNodeAttr(node_->def().attrs, name, out); }
  // A builder for a node named "<scope>/<name>" placed with the forward node's device request.
  NodeBuilder Builder(const std::string& name, const std::string& op) const;
  // Shorthand: builds op with the inputs and attrs given and returns output 0.
  StatusOr<NodeOut> Op(const std::string& op, const std::vector<NodeOut>& inputs,
                       const AttrMap& attrs = {}, const std::string& name = "") const;
  // A scalar or shaped constant of `dtype` placed like the forward node.
  StatusOr<NodeOut> Const(const Tensor& value, const std::string& name = "") const;

 private:
  Graph* g_;
  Node* node_;
  std::string scope_;
  mutable int counter_ = 0;
};

using GradFn = std::function<Status(GradContext* ctx, const std::vector<NodeOut>& dy,
                                    std::vector<NodeOut>* dx)>;

class GradientRegistry {
 public:
  static GradientRegistry* Global();
  void Register(const std::string& op, GradFn fn);
  // nullptr when the op has no gradient.
  const GradFn* Lookup(const std::string& op) const;
  // Marks an op as having no gradient on purpose (its inputs get none): integer ops, Shape.
  void RegisterNoGradient(const std::string& op);
  bool IsNoGradient(const std::string& op) const;

 private:
  mutable std::mutex mu_;
  std::map<std::string, GradFn> fns_;
  std::map<std::string, bool> no_gradient_;
};

struct GradientRegistrar {
  GradientRegistrar(const std::string& op, GradFn fn) { GradientRegistry::Global()->Register(op, std::move(fn)); }
};
struct NoGradientRegistrar {
  explicit NoGradientRegistrar(const std::string& op) { GradientRegistry::Global()->RegisterNoGradient(op); }
};

#define REGISTER_GRADIENT(op, fn) \
  static ::fb::GradientRegistrar FB_CONCAT(fb_grad_registrar_, __COUNTER__)(#op, fn)
#define REGISTER_NO_GRADIENT(op) \
  static ::fb::NoGradientRegistrar FB_CONCAT(fb_nograd_registrar_, __COUNTER__)(#op)

}  // namespace fb
