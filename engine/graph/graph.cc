#include "engine/graph/graph.h"

#include <deque>

#include "engine/framework/echo_input.h"

namespace fb {

const Edge* Node::input_edge(int i) const {
  for (const Edge* e : in_edges_)
    if (e->dst_input == i) return e;
  return nullptr;
}

StatusOr<Node*> Graph::AddNode(NodeDef def) {
  if (def.name.empty())
    return InvalidArgument("node with op '", EchoInput(def.op), "' has an empty name");
  if (by_name_.count(def.name))
    return InvalidArgument("duplicate node name '", EchoInput(def.name), "'");
  auto op = OpRegistry::Global()->LookUp(def.op);
  if (!op.ok())
    return NotFound("node '", EchoInput(def.name), "': unknown op '", EchoInput(def.op), "'");
  RETURN_IF_ERROR(AddDefaultsAndValidateAttrs(**op, def.name, &def.attrs));
  auto node = std::make_unique<Node>();
  RETURN_IF_ERROR(InOutTypesForNode(**op, def.name, def.attrs, &node->input_types_,
                                    &node->output_types_, &node->input_is_ref_,
                                    &node->output_is_ref_));
  node->id_ = static_cast<int>(nodes_.size());
  node->op_def_ = *op;
  node->def_ = std::move(def);
  Node* n = node.get();
  by_name_[n->name()] = n;
  nodes_.push_back(std::move(node));
  ++num_nodes_;
  return n;
}

const Edge* Graph::AddEdge(Node* src, int src_output, Node* dst, int dst_input) {
  auto e = std::make_unique<Edge>();
  e->id = static_cast<int>(edges_.size());
  e->src = src, e->src_output = src_output, e->dst = dst, e->dst_input = dst_input;
  src->out_edges_.push_back(e.get());
  dst->in_edges_.push_back(e.get());
  edges_.push_back(std::move(e));
  return edges_.back().get();
}

const Edge* Graph::AddControlEdge(Node* src, Node* dst) {
  for (const Edge* e : dst->in_edges_)
    if (e->IsControlEdge() && e->src == src) return e;
  return AddEdge(src, kControlSlot, dst, kControlSlot);
}

void Graph::RemoveEdge(const Edge* e) {
  auto erase = [e](std::vector<const Edge*>& v) {
    for (auto it = v.begin(); it != v.end(); ++it)
      if (*it == e) { v.erase(it); return; }
  };
  erase(e->src->out_edges_);
  erase(e->dst->in_edges_);
  edges_[e->id].reset();
}

void Graph::RemoveNode(Node* n) {
  std::vector<const Edge*> all = n->in_edges_;
  all.insert(all.end(), n->out_edges_.begin(), n->out_edges_.end());
  for (const Edge* e : all) RemoveEdge(e);
  by_name_.erase(n->name());
  nodes_[n->id()].reset();
  --num_nodes_;
}

Node* Graph::FindNode(const std::string& name) const {
  auto it = by_name_.find(name);
  return it == by_name_.end() ? nullptr : it->second;
}

std::vector<Node*> Graph::nodes() const {
  std::vector<Node*> v;
  v.reserve(num_nodes_);
  for (const auto& n : nodes_)
    if (n) v.push_back(n.get());
  return v;
}

std::string Graph::NewName(const std::string& prefix) const {
  if (!FindNode(prefix)) return prefix;
  for (int& i = last_suffix_[prefix];;) {
    std::string name = prefix + "_" + std::to_string(++i);
    if (!FindNode(name)) return name;
  }
}

Status Graph::WireInputs(Node* n) {
  // Names and input strings come from graph files: bounded in messages.
  const std::string name = EchoInput(n->name());
  int data_index = 0;
  bool seen_control = false;
  for (const std::string& in : n->def().inputs) {
    const std::string in_echo = EchoInput(in);
    auto id = ParseTensorId(in);
    if (!id.ok()) return InvalidArgument("node '", name, "': ", id.status().message());
    Node* src = FindNode(id->node);
    if (!src)
      return InvalidArgument("node '", name, "': input '", in_echo, "' names no node (dangling)");
    if (id->IsControl()) {
      seen_control = true;
      AddControlEdge(src, n);
      continue;
    }
    if (seen_control)
      return InvalidArgument("node '", name, "': data input '", in_echo,
                             "' after a control input");
    if (id->index >= src->num_outputs())
      return InvalidArgument("node '", name, "': input '", in_echo, "' but '",
                             EchoInput(src->name()), "' (", src->op(), ") has ",
                             src->num_outputs(), " outputs");
    if (data_index >= n->num_inputs())
      return InvalidArgument("node '", name, "' (", n->op(), ") takes ", n->num_inputs(),
                             " inputs, got more");
    DataType want = n->input_type(data_index), got = src->output_type(id->index);
    if (want != got)
      return InvalidArgument("node '", name, "' (", n->op(), "): input ", data_index,
                             " must be ", DataTypeString(want), ", got ", DataTypeString(got),
                             " from '", in_echo, "'");
    if (n->input_is_ref(data_index) && !src->output_is_ref(id->index))
      return InvalidArgument("node '", name, "' (", n->op(), "): input ", data_index,
                             " must be a reference (a Variable), got '", in_echo, "'");
    AddEdge(src, id->index, n, data_index++);
  }
  if (data_index != n->num_inputs())
    return InvalidArgument("node '", name, "' (", n->op(), ") takes ", n->num_inputs(),
                           " inputs, got ", data_index);
  return Status::OK();
}

StatusOr<Node*> Graph::AddNodeWithInputs(NodeDef def) {
  ASSIGN_OR_RETURN(Node * n, AddNode(std::move(def)));
  Status s = WireInputs(n);
  if (!s.ok()) {
    RemoveNode(n);
    return s;
  }
  return n;
}

Status Graph::AddNodesFrom(const GraphDef& def) {
  std::vector<Node*> added;
  for (const NodeDef& nd : def.nodes) {
    NodeDef copy = nd;
    ASSIGN_OR_RETURN(Node * n, AddNode(std::move(copy)));
    added.push_back(n);
  }
  for (Node* n : added) RETURN_IF_ERROR(WireInputs(n));
  return TopologicalOrder().status();
}

StatusOr<std::unique_ptr<Graph>> Graph::FromGraphDef(const GraphDef& def) {
  auto g = std::make_unique<Graph>();
  RETURN_IF_ERROR(g->AddNodesFrom(def));
  return g;
}

Status Graph::Extend(const GraphDef& def) {
  // Validate on a copy so that a bad extension leaves this graph untouched.
  GraphDef combined = ToGraphDef();
  combined.nodes.insert(combined.nodes.end(), def.nodes.begin(), def.nodes.end());
  ASSIGN_OR_RETURN(std::unique_ptr<Graph> check, FromGraphDef(combined));
  (void)check;
  Status s = AddNodesFrom(def);
  FB_CHECK(s.ok()) << "Extend validated on a copy but failed: " << s;
  return s;
}

void Graph::UpdateNodeDefInputs(Node* n) const {
  std::vector<std::string> data(n->num_inputs()), control;
  for (const Edge* e : n->in_edges()) {
    if (e->IsControlEdge()) control.push_back("^" + e->src->name());
    else data[e->dst_input] = e->src->name() + (e->src_output ? ":" + std::to_string(e->src_output) : "");
  }
  data.insert(data.end(), control.begin(), control.end());
  n->def_.inputs = data;
}

GraphDef Graph::ToGraphDef() const {
  GraphDef g;
  for (Node* n : nodes()) {
    UpdateNodeDefInputs(n);
    g.nodes.push_back(n->def());
  }
  return g;
}

std::unique_ptr<Graph> Graph::Clone() const {
  auto g = FromGraphDef(ToGraphDef());
  FB_CHECK(g.ok()) << g.status();
  for (Node* n : nodes()) (*g)->FindNode(n->name())->set_assigned_device(n->assigned_device());
  return std::move(*g);
}

StatusOr<std::vector<Node*>> Graph::TopologicalOrder() const {
  std::vector<int> pending(nodes_.size(), 0);
  std::deque<Node*> ready;
  auto is_back_edge = [](const Edge* e) { return e->src->op() == "NextIteration"; };
  for (Node* n : nodes()) {
    for (const Edge* e : n->in_edges())
      if (!is_back_edge(e)) ++pending[n->id()];
    if (pending[n->id()] == 0) ready.push_back(n);
  }
  std::vector<Node*> order;
  while (!ready.empty()) {
    Node* n = ready.front();
    ready.pop_front();
    order.push_back(n);
    for (const Edge* e : n->out_edges())
      if (!is_back_edge(e) && --pending[e->dst->id()] == 0) ready.push_back(e->dst);
  }
  if (static_cast<int>(order.size()) != num_nodes_) {
    for (Node* n : nodes())
      if (pending[n->id()] > 0)
        return InvalidArgument("graph has a cycle through node '", EchoInput(n->name()), "' (",
                               n->op(),
                               ")");
  }
  return order;
}

}  // namespace fb
