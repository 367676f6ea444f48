#include "sim/memory_plan.h"

#include <unordered_map>

namespace fb::sim {
namespace {

bool IsVariable(const Node& n) {
  return n.num_inputs() == 0 && n.num_outputs() > 0 && n.output_is_ref(0);
}

int64_t OutputBytes(const Node& n, const SimCosts& costs, bool refs) {
  int64_t total = 0;
  for (int port = 0; port < n.num_outputs(); ++port)
    if (n.output_is_ref(port) == refs) total += std::max<int64_t>(0, costs.output_bytes(n, port));
  return total;
}

Status PlanPartition(const Graph& placed, const GraphDef& def, const SimCosts& costs,
                     const SimProgram& program, SimPartition* p) {
  std::unordered_map<std::string, int32_t> index;
  for (size_t i = 0; i < def.nodes.size(); ++i) index[def.nodes[i].name] = static_cast<int32_t>(i);
  for (size_t i = 0; i < def.nodes.size(); ++i) {
    const NodeDef& d = def.nodes[i];
    SimNode& n = p->nodes[i];
    if (n.kind == SimNodeKind::kRecv && n.transfer >= 0) {
      n.alloc_bytes = program.transfers[n.transfer].bytes;
    } else if (const Node* gn = placed.FindNode(d.name);
               gn != nullptr && n.kind == SimNodeKind::kCompute) {
      if (IsVariable(*gn)) {
        p->resident_bytes += OutputBytes(*gn, costs, /*refs=*/true);
      } else {
        n.alloc_bytes = OutputBytes(*gn, costs, /*refs=*/false);
      }
    }
    for (const std::string& in : d.inputs) {
      if (in.empty() || in[0] == '^') continue;
      ASSIGN_OR_RETURN(TensorId id, ParseTensorId(in));
      auto it = index.find(id.node);
      if (it == index.end())
        return InvalidArgument("node '", d.name, "' on ", p->device, ": input '", in,
                               "' names no node of its partition");
      n.data_inputs.push_back(it->second);
      ++p->nodes[it->second].data_consumers;
    }
  }
  return Status::OK();
}

}  // namespace

Status PlanMemory(const Graph& placed, const std::map<std::string, GraphDef>& parts,
                  const SimCosts& costs, SimProgram* program) {
  size_t i = 0;
  for (const auto& [device, def] : parts) {
    FB_CHECK(i < program->partitions.size() && program->partitions[i].device == device)
        << "PlanMemory: partitions out of order";
    RETURN_IF_ERROR(PlanPartition(placed, def, costs, *program, &program->partitions[i]));
    ++i;
  }
  return Status::OK();
}

Status RequireMemoryCapacity(const std::vector<SimDevice>& devices, const std::vector<int>& used,
                             const std::string& platform_path) {
  for (int d : used)
    if (devices[d].desc.memory_limit_bytes <= 0)
      return InvalidArgument("--check-memory: platform file '", platform_path, "': host '",
                             devices[d].host_name, "' (device ", devices[d].desc.name,
                             ") declares no memory capacity; add <prop id=\"memory_bytes\" "
                             "value=\"BYTES\"/> to it");
  return Status::OK();
}

}  // namespace fb::sim
