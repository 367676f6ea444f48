#pragma once
// NodeBuilder: adds one node to a Graph with its input edges, inferring type attrs from inputs
// the way TensorFlow's NodeBuilder does: for an arg "x: T", attr T is set from the dtype of the
// tensor wired to x unless given; for "xs: N * T", N is set from the list length; for "xs: T"
// with T a list(type), T is set to the list's dtypes.
//
//   ASSIGN_OR_RETURN(Node* mm, NodeBuilder("grad/MatMul", "MatMul").Input(dy).Input(w)
//                                  .Attr("transpose_b", true).Finalize(g));
#include <string>
#include <vector>

#include "engine/graph/graph.h"

namespace fb {

// An output port of a node: the unit that flows along data edges.
struct NodeOut {
  Node* node = nullptr;
  int index = 0;
  bool valid() const { return node != nullptr; }
  DataType dtype() const { return node->output_type(index); }
  std::string name() const { return node->name() + ":" + std::to_string(index); }
};

class NodeBuilder {
 public:
  NodeBuilder(std::string name, std::string op);
  NodeBuilder& Input(NodeOut in);
  NodeBuilder& Input(const std::vector<NodeOut>& list);  // for "N * T" and list(type) args
  NodeBuilder& ControlInput(Node* n);
  NodeBuilder& ControlInputs(const std::vector<Node*>& ns);
  NodeBuilder& Attr(const std::string& name, AttrValue value);
  NodeBuilder& Device(std::string device);
  // Validates (unknown op, wrong input count or dtypes, missing attrs; errors name the node) and
  // adds the node and its edges to `g`. On error `g` is unchanged.
  StatusOr<Node*> Finalize(Graph* g) const;

 private:
  struct InputArg {
    std::vector<NodeOut> outs;
    bool is_list = false;
  };
  NodeDef def_;
  std::vector<InputArg> inputs_;
  std::vector<Node*> control_inputs_;
};

}  // namespace fb
