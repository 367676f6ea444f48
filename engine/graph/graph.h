#pragma once
// Graph: the in-memory dataflow graph (whitepaper section 2): nodes instantiate ops, data edges
// carry tensors from an output port to an input port, control edges (port -1) only order nodes.
// Built from a GraphDef with full validation; every error names the offending node.
// Not thread-safe for mutation; const access from several threads is safe.
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "engine/framework/op_def.h"
#include "engine/graph/node_def.h"

namespace fb {

class Node;
inline constexpr int kControlSlot = -1;

struct Edge {
  int id = -1;
  Node* src = nullptr;
  int src_output = 0;  // kControlSlot for control edges
  Node* dst = nullptr;
  int dst_input = 0;   // kControlSlot for control edges
  bool IsControlEdge() const { return src_output == kControlSlot; }
};

class Node {
 public:
  int id() const { return id_; }
  const std::string& name() const { return def_.name; }
  const std::string& op() const { return def_.op; }
  const NodeDef& def() const { return def_; }
  NodeDef* mutable_def() { return &def_; }
  const OpDef& op_def() const { return *op_def_; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }
  bool input_is_ref(int i) const { return input_is_ref_[i]; }
  bool output_is_ref(int i) const { return output_is_ref_[i]; }
  bool is_stateful() const { return op_def_->is_stateful; }
  const std::vector<const Edge*>& in_edges() const { return in_edges_; }
  const std::vector<const Edge*>& out_edges() const { return out_edges_; }
  // The edge feeding data input i, or nullptr.
  const Edge* input_edge(int i) const;
  // Device this node was placed on (full name); empty before placement.
  const std::string& assigned_device() const { return assigned_device_; }
  void set_assigned_device(std::string d) { assigned_device_ = std::move(d); }
  const std::string& requested_device() const { return def_.device; }

 private:
  friend class Graph;
  int id_ = -1;
  NodeDef def_;
  const OpDef* op_def_ = nullptr;
  std::vector<DataType> input_types_, output_types_;
  std::vector<bool> input_is_ref_, output_is_ref_;
  std::vector<const Edge*> in_edges_, out_edges_;
  std::string assigned_device_;
};

class Graph {
 public:
  Graph() = default;
  Graph(const Graph&) = delete;
  Graph& operator=(const Graph&) = delete;

  // Builds and validates: unknown op, duplicate name, bad or missing attr, dangling input,
  // input count or dtype mismatch, Ref input fed by a non-ref output, and cycles not broken by a
  // NextIteration node (loops, 4.4). InvalidArgument/NotFound naming the node.
  static StatusOr<std::unique_ptr<Graph>> FromGraphDef(const GraphDef& def);
  // Adds every node of `def` to this graph (Session::Extend). On error the graph is unchanged.
  Status Extend(const GraphDef& def);
  GraphDef ToGraphDef() const;
  std::unique_ptr<Graph> Clone() const;

  // Adds a node without inputs wired (AddEdge wires them). Validates op and attrs.
  StatusOr<Node*> AddNode(NodeDef def);
  // Adds a node and wires def.inputs, which must name existing nodes (no cycle can form).
  // Validates op, attrs, arity and dtypes; on error the graph is unchanged.
  StatusOr<Node*> AddNodeWithInputs(NodeDef def);
  const Edge* AddEdge(Node* src, int src_output, Node* dst, int dst_input);
  const Edge* AddControlEdge(Node* src, Node* dst);
  void RemoveEdge(const Edge* e);
  // Removes the node and all its edges.
  void RemoveNode(Node* n);
  // Keeps NodeDef.inputs in sync with the edges (called by ToGraphDef; public for passes).
  void UpdateNodeDefInputs(Node* n) const;

  Node* FindNode(const std::string& name) const;
  // Live nodes in id order.
  std::vector<Node*> nodes() const;
  int num_nodes() const { return num_nodes_; }
  int num_node_ids() const { return static_cast<int>(nodes_.size()); }
  Node* node(int id) const { return nodes_[id].get(); }
  int num_edge_ids() const { return static_cast<int>(edges_.size()); }
  // A unique node name starting with `prefix` ("prefix", "prefix_1", ...). Amortized O(log n):
  // the search for a free suffix resumes after the last one handed out for `prefix`. Not
  // thread-safe (like the graph's other mutations).
  std::string NewName(const std::string& prefix) const;

  // Kahn order ignoring back edges out of NextIteration nodes. InvalidArgument naming a node on
  // a cycle if there is one.
  StatusOr<std::vector<Node*>> TopologicalOrder() const;

 private:
  Status AddNodesFrom(const GraphDef& def);
  Status WireInputs(Node* n);
  std::vector<std::unique_ptr<Node>> nodes_;
  std::vector<std::unique_ptr<Edge>> edges_;
  std::map<std::string, Node*> by_name_;
  int num_nodes_ = 0;
  mutable std::map<std::string, int> last_suffix_;  // NewName: per prefix
};

}  // namespace fb
