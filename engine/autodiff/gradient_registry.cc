#include "engine/autodiff/gradient_registry.h"

namespace fb {

NodeOut GradContext::input(int i) const {
  const Edge* e = node_->input_edge(i);
  return e ? NodeOut{e->src, e->src_output} : NodeOut{};
}

NodeBuilder GradContext::Builder(const std::string& name, const std::string& op) const {
  NodeBuilder b(g_->NewName(scope_ + "/" + name), op);
  b.Device(node_->requested_device());
  return b;
}

StatusOr<NodeOut> GradContext::Op(const std::string& op, const std::vector<NodeOut>& inputs,
                                  const AttrMap& attrs, const std::string& name) const {
  NodeBuilder b = Builder(name.empty() ? op + "_" + std::to_string(counter_++) : name, op);
  for (const NodeOut& in : inputs) b.Input(in);
  for (const auto& [k, v] : attrs) b.Attr(k, v);
  ASSIGN_OR_RETURN(Node * n, b.Finalize(g_));
  return NodeOut{n, 0};
}

StatusOr<NodeOut> GradContext::Const(const Tensor& value, const std::string& name) const {
  return Op("Const", {}, {{"value", value}, {"dtype", value.dtype()}},
            name.empty() ? "Const_" + std::to_string(counter_++) : name);
}

GradientRegistry* GradientRegistry::Global() {
  static GradientRegistry* r = new GradientRegistry;
  return r;
}

void GradientRegistry::Register(const std::string& op, GradFn fn) {
  std::lock_guard<std::mutex> l(mu_);
  FB_CHECK(fns_.count(op) == 0) << "REGISTER_GRADIENT(" << op << ") twice";
  fns_[op] = std::move(fn);
}

const GradFn* GradientRegistry::Lookup(const std::string& op) const {
  std::lock_guard<std::mutex> l(mu_);
  auto it = fns_.find(op);
  return it == fns_.end() ? nullptr : &it->second;
}

void GradientRegistry::RegisterNoGradient(const std::string& op) {
  std::lock_guard<std::mutex> l(mu_);
  no_gradient_[op] = true;
}

bool GradientRegistry::IsNoGradient(const std::string& op) const {
  std::lock_guard<std::mutex> l(mu_);
  return no_gradient_.count(op) > 0;
}

}  // namespace fb
