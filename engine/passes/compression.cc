#include "engine/passes/compression.h"

#include <map>

#include "engine/framework/device_name.h"
#include "engine/framework/op_kernel.h"

namespace fb {

namespace {

bool HasKernelOn(const std::string& device, const NodeDef& def) {
  auto parsed = ParseDeviceName(device);
  return parsed.ok() && KernelRegistry::Global()->HasKernel(parsed->type, def);
}

StatusOr<Node*> AddConversion(Graph* g, const std::string& op, const std::string& name,
                              const std::string& device, Node* src, int port, bool truncate) {
  NodeDef def{g->NewName(name), op, {}, device, {}};
  if (op == "_CompressFloat32") def.attrs["truncate"] = truncate;
  ASSIGN_OR_RETURN(Node * n, g->AddNode(def));
  n->set_assigned_device(device);
  g->AddEdge(src, port, n, 0);
  return n;
}

bool Compressible(const Edge& e) {
  return !e.IsControlEdge() && e.src->assigned_device() != e.dst->assigned_device() &&
         e.src->output_type(e.src_output) == DataType::kFloat && !e.src->output_is_ref(e.src_output) &&
         !e.dst->input_is_ref(e.dst_input);
}

}  // namespace

StatusOr<PassReport> CompressCrossDeviceTransfers(Graph* g, bool truncate) {
  PassReport report;
  NodeDef probe_c{"probe", "_CompressFloat32", {}, "", {{"truncate", truncate}}};
  NodeDef probe_d{"probe", "_DecompressFloat32", {}, "", {}};
  std::vector<const Edge*> edges;
  for (Node* n : g->nodes()) {
    if (n->assigned_device().empty())
      return FailedPrecondition("compression runs after placement; node '", n->name(),
                                "' has no device");
    for (const Edge* e : n->out_edges())
      if (Compressible(*e) && HasKernelOn(e->src->assigned_device(), probe_c) &&
          HasKernelOn(e->dst->assigned_device(), probe_d))
        edges.push_back(e);
  }
  std::map<std::pair<int, int>, Node*> compressed;                 // (src, port) -> compress
  std::map<std::tuple<int, int, std::string>, Node*> decompressed;  // + dst device
  for (const Edge* e : edges) {
    Node *src = e->src, *dst = e->dst;
    int port = e->src_output, input = e->dst_input;
    const std::string& dst_dev = dst->assigned_device();
    std::string base = src->name() + "/" + std::to_string(port);
    Node*& c = compressed[{src->id(), port}];
    if (!c) {
      ASSIGN_OR_RETURN(c, AddConversion(g, "_CompressFloat32", base + "/compress",
                                        src->assigned_device(), src, port, truncate));
    }
    Node*& d = decompressed[{src->id(), port, dst_dev}];
    if (!d) {
      ASSIGN_OR_RETURN(d, AddConversion(g, "_DecompressFloat32", base + "/decompress", dst_dev, c,
                                        0, truncate));
      report.changes.push_back("compressed '" + src->name() + ":" + std::to_string(port) +
                               "' to " + dst_dev);
    }
    g->RemoveEdge(e);
    g->AddEdge(d, 0, dst, input);
  }
  report.num_changes = static_cast<int>(report.changes.size());
  return report;
}

namespace {
template <bool kTruncate>
class CompressionPass : public GraphPass {
 public:
  PassPhase phase() const override { return PassPhase::kAfterPlacement; }
  StatusOr<PassReport> Run(Graph* g, const PassContext&) override {
    return CompressCrossDeviceTransfers(g, kTruncate);
  }
};
}  // namespace

REGISTER_GRAPH_PASS("compression", CompressionPass<false>);
REGISTER_GRAPH_PASS("compression_truncate", CompressionPass<true>);

}  // namespace fb
