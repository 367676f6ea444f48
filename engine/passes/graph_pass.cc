#include "engine/passes/graph_pass.h"

#include <algorithm>
#include <sstream>

#include "engine/placement/cost_model.h"

namespace fb {

std::string PassReport::Summary() const {
  std::ostringstream os;
  os << pass << ": " << num_changes << " change" << (num_changes == 1 ? "" : "s");
  for (size_t i = 0; i < changes.size(); ++i) os << (i == 0 ? " (" : "; ") << changes[i];
  if (!changes.empty()) os << ")";
  return os.str();
}

GraphPassRegistry* GraphPassRegistry::Global() {
  static auto* registry = new GraphPassRegistry;
  return registry;
}

void GraphPassRegistry::Register(const std::string& name, Factory factory) {
  FB_CHECK(factories_.emplace(name, std::move(factory)).second)
      << "graph pass '" << name << "' registered twice";
}

StatusOr<std::unique_ptr<GraphPass>> GraphPassRegistry::Create(const std::string& name) const {
  auto it = factories_.find(name);
  if (it == factories_.end()) {
    std::ostringstream os;
    for (const auto& [n, f] : factories_) os << " " << n;
    return NotFound("unknown graph pass '", name, "'; registered:", os.str());
  }
  return it->second();
}

std::vector<std::string> GraphPassRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [n, f] : factories_) names.push_back(n);
  return names;
}

const std::vector<std::string>& DefaultGraphPasses() {
  static const auto* passes =
      new std::vector<std::string>{"materialize_shapes", "identity_removal", "constant_folding"};
  return *passes;
}

std::vector<std::string> PassesToRun(const std::vector<std::string>& requested,
                                     bool with_defaults) {
  std::vector<std::string> out;
  if (with_defaults)
    for (const std::string& p : DefaultGraphPasses())
      if (std::find(requested.begin(), requested.end(), p) == requested.end()) out.push_back(p);
  out.insert(out.end(), requested.begin(), requested.end());
  return out;
}

Status RunGraphPasses(const std::vector<std::string>& names, PassPhase phase, Graph* g,
                      const PassContext& ctx, std::vector<PassReport>* reports) {
  for (const std::string& name : names) {
    ASSIGN_OR_RETURN(std::unique_ptr<GraphPass> pass, GraphPassRegistry::Global()->Create(name));
    if (pass->phase() != phase) continue;
    PassContext local = ctx;
    std::optional<CostModel> cost;
    if (phase == PassPhase::kAfterPlacement) {
      CostModelOptions opts;
      opts.strict_shapes = false;
      ASSIGN_OR_RETURN(cost, CostModel::Create(*g, local.devices, local.links, opts));
      local.cost = &*cost;
    }
    ASSIGN_OR_RETURN(PassReport report, pass->Run(g, local));
    report.pass = name;
    reports->push_back(std::move(report));
  }
  return Status::OK();
}

}  // namespace fb
