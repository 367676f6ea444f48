#pragma once
// Test helper for exact expected graphs: one line per node, sorted by name,
// "name = Op(src:port, ..., ^control, ...)" with control inputs sorted.
#include <algorithm>
#include <string>
#include <vector>

#include "engine/graph/graph.h"

namespace fb::test {

inline std::vector<std::string> GraphLines(const Graph& g) {
  std::vector<std::string> lines;
  for (Node* n : g.nodes()) {
    std::vector<std::string> data(static_cast<size_t>(n->num_inputs()), "?");
    std::vector<std::string> control;
    for (const Edge* e : n->in_edges()) {
      if (e->IsControlEdge()) control.push_back("^" + e->src->name());
      else data[static_cast<size_t>(e->dst_input)] = e->src->name() + ":" + std::to_string(e->src_output);
    }
    std::sort(control.begin(), control.end());
    data.insert(data.end(), control.begin(), control.end());
    std::string line = n->name() + " = " + n->op() + "(";
    for (size_t i = 0; i < data.size(); ++i) line += (i ? ", " : "") + data[i];
    lines.push_back(line + ")");
  }
  std::sort(lines.begin(), lines.end());
  return lines;
}

}  // namespace fb::test
