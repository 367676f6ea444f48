#include "engine/passes/fuse_conv_bias_relu.h"

#include <optional>
#include <set>

#include "engine/framework/device_name.h"
#include "engine/framework/op_kernel.h"
#include "engine/framework/status.h"

namespace fb {

namespace {

struct Chain {
  Node* conv;
  Node* bias;
  Node* relu;
};

// The node feeding data input `i` of n through its output 0 alone, if it has op `op`.
Node* SoleProducer(const Node& n, int i, const char* op) {
  const Edge* e = n.input_edge(i);
  if (e == nullptr || e->src_output != 0 || e->src->op() != op) return nullptr;
  if (e->src->out_edges().size() != 1) return nullptr;  // another data or control consumer
  return e->src;
}

std::string DeviceType(const std::string& device) {
  auto parsed = ParseDeviceName(device);
  return parsed.ok() && parsed->has_type ? parsed->type : "";
}

NodeDef FusedDef(const Chain& c) {
  NodeDef def;
  def.name = c.relu->name();
  def.op = "_FusedConv2D";
  def.device = c.conv->requested_device();
  def.attrs = c.conv->def().attrs;
  def.attrs["fused_ops"] = AttrValue(std::vector<std::string>{"BiasAdd", "Relu"});
  return def;
}

std::optional<Chain> MatchAt(Node* relu) {
  if (relu->op() != "Relu" || relu->num_inputs() != 1) return std::nullopt;
  Node* bias = SoleProducer(*relu, 0, "BiasAdd");
  if (bias == nullptr) return std::nullopt;
  Node* conv = SoleProducer(*bias, 0, "Conv2D");
  if (conv == nullptr) return std::nullopt;
  std::string format = "NHWC";
  if (GetNodeAttr(bias->def().attrs, "data_format", &format).ok() && format != "NHWC")
    return std::nullopt;
  const std::string& device = relu->assigned_device();
  if (device.empty() || bias->assigned_device() != device || conv->assigned_device() != device)
    return std::nullopt;
  Chain c{conv, bias, relu};
  if (!KernelRegistry::Global()->HasKernel(DeviceType(device), FusedDef(c))) return std::nullopt;
  return c;
}

struct Endpoint {
  Node* node;
  int port;  // kControlSlot for a control edge
};

// Replaces the chain by one node: wires its inputs, the control inputs of all three and the
// Relu's consumers.
void Fuse(Graph* g, const Chain& c) {
  const Edge* bias_in = c.bias->input_edge(1);
  std::vector<Endpoint> inputs = {{c.conv->input_edge(0)->src, c.conv->input_edge(0)->src_output},
                                  {c.conv->input_edge(1)->src, c.conv->input_edge(1)->src_output},
                                  {bias_in->src, bias_in->src_output}};
  std::vector<Node*> waits;
  for (Node* n : {c.conv, c.bias, c.relu})
    for (const Edge* e : n->in_edges())
      if (e->IsControlEdge()) waits.push_back(e->src);
  std::vector<Endpoint> consumers;
  for (const Edge* e : c.relu->out_edges()) consumers.push_back({e->dst, e->dst_input});
  const NodeDef def = FusedDef(c);
  const std::string device = c.relu->assigned_device();
  g->RemoveNode(c.relu);
  g->RemoveNode(c.bias);
  g->RemoveNode(c.conv);
  auto added = g->AddNode(def);
  FB_CHECK(added.ok()) << added.status().ToString();
  Node* fused = *added;
  fused->set_assigned_device(device);
  for (int i = 0; i < 3; ++i) g->AddEdge(inputs[i].node, inputs[i].port, fused, i);
  std::set<Node*> added_waits;
  for (Node* w : waits)
    if (added_waits.insert(w).second) g->AddControlEdge(w, fused);
  for (const Endpoint& e : consumers) {
    if (e.port == kControlSlot) g->AddControlEdge(fused, e.node);
    else g->AddEdge(fused, 0, e.node, e.port);
  }
}

}  // namespace

PassReport FuseConvBiasRelu(Graph* g) {
  PassReport report;
  report.pass = "fuse_conv_bias_relu";
  std::vector<Chain> chains;
  for (Node* n : g->nodes())
    if (auto c = MatchAt(n)) chains.push_back(*c);
  for (const Chain& c : chains) {  // disjoint: each Relu owns its BiasAdd and Conv2D
    report.changes.push_back("fused '" + c.conv->name() + "', '" + c.bias->name() + "', '" +
                             c.relu->name() + "'");
    Fuse(g, c);
  }
  report.num_changes = static_cast<int>(report.changes.size());
  return report;
}

namespace {
class FuseConvBiasReluPass : public GraphPass {
 public:
  PassPhase phase() const override { return PassPhase::kAfterPlacement; }
  StatusOr<PassReport> Run(Graph* g, const PassContext&) override { return FuseConvBiasRelu(g); }
};
}  // namespace

REGISTER_GRAPH_PASS("fuse_conv_bias_relu", FuseConvBiasReluPass);

}  // namespace fb
