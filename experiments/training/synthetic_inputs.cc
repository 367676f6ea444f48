#include "experiments/training/synthetic_inputs.h"

namespace fb::experiments {

StatusOr<SyntheticInit> MoveFeedsIntoVariables(GraphDef* graph,
                                               std::vector<Session::NamedTensor>* feeds) {
  SyntheticInit init;
  std::vector<NodeDef> added;
  for (auto& [feed_name, value] : *feeds) {
    const std::string name = feed_name.substr(0, feed_name.find(':'));
    NodeDef* node = nullptr;
    for (NodeDef& n : graph->nodes)
      if (n.name == name) node = &n;
    if (node == nullptr || node->op != "Placeholder")
      return InvalidArgument("synthetic input '", feed_name, "' is not a Placeholder of the graph");
    auto dtype = node->attrs.find("dtype");
    if (dtype == node->attrs.end() || !dtype->second.holds<DataType>() ||
        dtype->second.get<DataType>() != value.dtype())
      return InvalidArgument("synthetic input '", feed_name, "': the Placeholder's dtype differs "
                             "from the fed ", DataTypeString(value.dtype()), " tensor");
    node->op = "Variable";
    node->attrs = {{"dtype", value.dtype()}, {"shape", value.shape()}};
    NodeDef source{name + "/synthetic_value", "Placeholder", {}, "", {{"dtype", value.dtype()}}};
    NodeDef assign{name + "/synthetic_assign", "Assign", {name, source.name}, node->device,
                   {{"T", value.dtype()}}};
    init.feeds.emplace_back(source.name, value);
    init.targets.push_back(assign.name);
    added.push_back(std::move(source));
    added.push_back(std::move(assign));
  }
  for (NodeDef& n : added) graph->nodes.push_back(std::move(n));
  feeds->clear();
  return init;
}

}  // namespace fb::experiments
