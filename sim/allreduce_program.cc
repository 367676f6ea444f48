#include "sim/allreduce_program.h"

#include <algorithm>
#include <unordered_map>

#include "engine/framework/types.h"

namespace fb::sim {
namespace {

// The input index of the gradient of a variable update op, or -1.
int GradientInput(const Node& n) {
  bool updates = false;
  for (int i = 0; i < n.num_inputs(); ++i) updates |= n.input_is_ref(i);
  if (!updates) return -1;
  const OpDef& def = n.op_def();
  for (size_t a = 0; a < def.inputs.size(); ++a) {
    if (!def.inputs[a].number_attr.empty()) return -1;  // list inputs: indices shift
    if (def.inputs[a].name == "grad" || def.inputs[a].name == "delta") return static_cast<int>(a);
  }
  return -1;
}

void Replace(std::vector<int32_t>* v, int32_t from, int32_t to) {
  auto it = std::find(v->begin(), v->end(), from);
  FB_CHECK(it != v->end()) << "InsertAllreduce: edge not found";
  *it = to;
}

struct Gradient {
  int32_t producer, consumer;
  int64_t bytes;
  int32_t element_bytes;
};

// Gradients of partition `p`: (producer, update op) pairs of local node indices.
StatusOr<std::vector<Gradient>> FindGradients(const Graph& g, const SimCosts& costs,
                                              const SimPartition& p) {
  std::unordered_map<std::string, int32_t> index;
  for (size_t i = 0; i < p.nodes.size(); ++i) index[p.nodes[i].name] = static_cast<int32_t>(i);
  std::vector<Gradient> out;
  for (size_t i = 0; i < p.nodes.size(); ++i) {
    const Node* n = g.FindNode(p.nodes[i].name);
    const int k = n ? GradientInput(*n) : -1;
    if (k < 0) continue;
    const Edge* e = n->input_edge(k);
    if (e == nullptr || !index.count(e->src->name())) continue;
    Gradient gr;
    gr.producer = index[e->src->name()];
    gr.consumer = static_cast<int32_t>(i);
    gr.bytes = std::max<int64_t>(0, costs.output_bytes(*e->src, e->src_output));
    gr.element_bytes = static_cast<int32_t>(DataTypeSize(e->src->output_type(e->src_output)));
    out.push_back(gr);
  }
  if (out.empty())
    return InvalidArgument(
        "--mode allreduce: the graph updates no variable (no Apply* op with a "
        "'grad' or 'delta' input on ",
        p.device, "): nothing to all-reduce");
  return out;
}

}  // namespace

Status InsertAllreduce(const Graph& placed, const SimCosts& costs, SimProgram* program) {
  if (program->partitions.size() != 1)
    return InvalidArgument(
        "--mode allreduce needs each replica's graph on one device, the "
        "placement gave ",
        program->partitions.size(), " partitions");
  SimPartition& p = program->partitions[0];
  for (SimNode& n : p.nodes)
    if (n.op == "MpiAllreduce") {  // a dist-train graph: its own fused collective
      n.kind = SimNodeKind::kCollective;
      n.collective_bytes = n.alloc_bytes > 0 ? n.alloc_bytes : n.output_bytes;
    }
  for (const SimNode& n : p.nodes)
    if (n.kind == SimNodeKind::kCollective) return Status::OK();
  ASSIGN_OR_RETURN(std::vector<Gradient> grads, FindGradients(placed, costs, p));
  const int32_t c = static_cast<int32_t>(p.nodes.size());
  SimNode col;
  col.name = "allreduce";
  col.op = "MpiAllreduce";
  col.kind = SimNodeKind::kCollective;
  col.element_bytes = grads[0].element_bytes;
  for (const Gradient& g : grads) {
    Replace(&p.nodes[g.producer].succs, g.consumer, c);
    Replace(&p.nodes[g.consumer].data_inputs, g.producer, c);
    ++col.num_preds;
    col.succs.push_back(g.consumer);
    col.data_inputs.push_back(g.producer);
    ++col.data_consumers;
    col.collective_bytes += g.bytes;
  }
  col.alloc_bytes = col.collective_bytes;
  col.output_bytes = col.collective_bytes;
  p.nodes.push_back(std::move(col));
  return Status::OK();
}

}  // namespace fb::sim
