#include "engine/graph/node_builder.h"

namespace fb {

NodeBuilder::NodeBuilder(std::string name, std::string op) {
  def_.name = std::move(name);
  def_.op = std::move(op);
}

NodeBuilder& NodeBuilder::Input(NodeOut in) {
  inputs_.push_back({{in}, false});
  return *this;
}

NodeBuilder& NodeBuilder::Input(const std::vector<NodeOut>& list) {
  inputs_.push_back({list, true});
  return *this;
}

NodeBuilder& NodeBuilder::ControlInput(Node* n) {
  if (n) control_inputs_.push_back(n);
  return *this;
}

NodeBuilder& NodeBuilder::ControlInputs(const std::vector<Node*>& ns) {
  for (Node* n : ns) ControlInput(n);
  return *this;
}

NodeBuilder& NodeBuilder::Attr(const std::string& name, AttrValue value) {
  def_.attrs[name] = std::move(value);
  return *this;
}

NodeBuilder& NodeBuilder::Device(std::string device) {
  def_.device = std::move(device);
  return *this;
}

StatusOr<Node*> NodeBuilder::Finalize(Graph* g) const {
  ASSIGN_OR_RETURN(const OpDef* op, OpRegistry::Global()->LookUp(def_.op));
  std::string where = "node '" + def_.name + "' (" + def_.op + "): ";
  if (inputs_.size() != op->inputs.size())
    return InvalidArgument(where, "takes ", op->inputs.size(), " input args, got ", inputs_.size());
  NodeDef def = def_;
  for (size_t i = 0; i < inputs_.size(); ++i) {
    const ArgDef& arg = op->inputs[i];
    const InputArg& in = inputs_[i];
    for (const NodeOut& o : in.outs)
      if (!o.valid()) return InvalidArgument(where, "input '", arg.name, "' is not set");
    if (!arg.number_attr.empty() && !def.attrs.count(arg.number_attr))
      def.attrs[arg.number_attr] = static_cast<int64_t>(in.outs.size());
    const AttrDef* type_attr = arg.type_attr.empty() ? nullptr : op->FindAttr(arg.type_attr);
    if (type_attr && type_attr->type == AttrType::kListType && !def.attrs.count(arg.type_attr)) {
      std::vector<DataType> types;  // "xs: T" with T a list(type): one dtype per tensor
      for (const NodeOut& o : in.outs) types.push_back(o.dtype());
      def.attrs[arg.type_attr] = types;
    } else if (type_attr && !def.attrs.count(arg.type_attr) && !in.outs.empty()) {
      def.attrs[arg.type_attr] = in.outs[0].dtype();
    }
    for (const NodeOut& o : in.outs) def.inputs.push_back(o.name());
  }
  for (Node* c : control_inputs_) def.inputs.push_back("^" + c->name());
  // Validates types, arity and attrs against the op definition; atomic on error.
  return g->AddNodeWithInputs(std::move(def));
}

}  // namespace fb
