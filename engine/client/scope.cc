#include "engine/client/scope.h"

namespace fb {

std::string Output::name() const {
  return node_ ? node_->name() + ":" + std::to_string(index_) : "<invalid>";
}

Scope Scope::NewRootScope() {
  Scope s;
  s.graph_ = std::make_shared<Graph>();
  s.status_ = std::make_shared<Status>();
  return s;
}

Scope Scope::ForGraph(Graph* g) {
  Scope s;
  s.graph_ = std::shared_ptr<Graph>(g, [](Graph*) {});
  s.status_ = std::make_shared<Status>();
  return s;
}

Scope Scope::NewSubScope(const std::string& name) const {
  Scope s = *this;
  s.op_name_.clear();
  if (!name.empty()) s.prefix_ = prefix_ + name + "/";
  return s;
}

Scope Scope::WithOpName(const std::string& name) const {
  Scope s = *this;
  s.op_name_ = name;
  return s;
}

Scope Scope::WithDevice(const std::string& device) const {
  Scope s = *this;
  s.device_ = device;
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Output>& deps) const {
  Scope s = *this;
  for (const Output& o : deps)
    if (o.node()) s.control_deps_.push_back(o.node());
  return s;
}

Scope Scope::WithControlDependencies(const std::vector<Node*>& deps) const {
  Scope s = *this;
  for (Node* n : deps)
    if (n) s.control_deps_.push_back(n);
  return s;
}

void Scope::UpdateStatus(const Status& s) const {
  if (status_->ok() && !s.ok()) *status_ = s;
}

std::string Scope::GetUniqueName(const std::string& default_name) const {
  std::string base = prefix_ + (op_name_.empty() ? default_name : op_name_);
  return graph_->NewName(base);
}

namespace ops {

Node* AddOpWithList(const Scope& scope, const std::string& op,
                    const std::vector<std::vector<Output>>& args, const AttrMap& attrs) {
  if (!scope.ok()) return nullptr;
  NodeBuilder b(scope.GetUniqueName(op), op);
  for (const auto& arg : args) {
    std::vector<NodeOut> outs;
    for (const Output& o : arg) {
      if (!o.valid()) {
        scope.UpdateStatus(InvalidArgument("building ", op, ": an input is invalid"));
        return nullptr;
      }
      outs.push_back(o);
    }
    b.Input(outs);
  }
  for (const auto& [k, v] : attrs) b.Attr(k, v);
  b.Device(scope.device());
  b.ControlInputs(scope.control_deps());
  auto n = b.Finalize(scope.graph());
  if (!n.ok()) {
    scope.UpdateStatus(n.status());
    return nullptr;
  }
  return *n;
}

Node* AddOp(const Scope& scope, const std::string& op, const std::vector<Output>& inputs,
            const AttrMap& attrs) {
  if (!scope.ok()) return nullptr;
  auto op_def = OpRegistry::Global()->LookUp(op);
  if (!op_def.ok()) {
    scope.UpdateStatus(op_def.status());
    return nullptr;
  }
  // Single inputs map one-to-one onto args; list args must use AddOpWithList.
  std::vector<std::vector<Output>> args;
  for (const Output& o : inputs) args.push_back({o});
  if ((*op_def)->inputs.size() != inputs.size()) {
    scope.UpdateStatus(InvalidArgument("building ", op, ": takes ", (*op_def)->inputs.size(),
                                       " inputs, got ", inputs.size()));
    return nullptr;
  }
  return AddOpWithList(scope, op, args, attrs);
}

Output Op(const Scope& scope, const std::string& op, const std::vector<Output>& inputs,
          const AttrMap& attrs) {
  Node* n = AddOp(scope, op, inputs, attrs);
  return n ? Output(n, 0) : Output();
}

}  // namespace ops
}  // namespace fb
