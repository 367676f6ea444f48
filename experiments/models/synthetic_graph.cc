#include "experiments/models/synthetic_graph.h"

#include <random>

#include "engine/graph/node_builder.h"

namespace fb {

StatusOr<std::unique_ptr<Graph>> BuildLayeredGraph(const SyntheticGraphOptions& o) {
  if (o.layers < 1 || o.width < 1 || o.batch < 1 || o.hidden < 1)
    return InvalidArgument("synthetic graph: layers, width, batch and hidden must be positive");
  auto g = std::make_unique<Graph>();
  std::mt19937_64 rng(o.seed);
  ASSIGN_OR_RETURN(Node * x, NodeBuilder("x", "Placeholder")
                                 .Attr("dtype", DataType::kFloat)
                                 .Attr("shape", TensorShape({o.batch, o.hidden}))
                                 .Finalize(g.get()));
  std::vector<Node*> prev(1, x);
  for (int l = 0; l < o.layers; ++l) {
    std::string layer = "l" + std::to_string(l);
    ASSIGN_OR_RETURN(Node * w, NodeBuilder(layer + "/w", "Variable")
                                   .Attr("dtype", DataType::kFloat)
                                   .Attr("shape", TensorShape({o.hidden, o.hidden}))
                                   .Finalize(g.get()));
    std::uniform_int_distribution<size_t> pick(0, prev.size() - 1);
    std::vector<Node*> cur;
    for (int j = 0; j < o.width; ++j) {
      std::string name = layer + "/n" + std::to_string(j);
      Node* a = prev[pick(rng)];
      Node* b = prev[pick(rng)];
      NodeBuilder nb = rng() % 3 == 0   ? NodeBuilder(name, "MatMul").Input({a, 0}).Input({w, 0})
                       : rng() % 2 == 0 ? NodeBuilder(name, "Add").Input({a, 0}).Input({b, 0})
                                        : NodeBuilder(name, "Tanh").Input({a, 0});
      ASSIGN_OR_RETURN(Node * n, nb.Finalize(g.get()));
      cur.push_back(n);
    }
    prev = std::move(cur);
  }
  return g;
}

}  // namespace fb
