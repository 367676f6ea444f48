#include "experiments/training/model_saver.h"

#include <algorithm>

namespace fb::experiments {

StatusOr<std::unique_ptr<Saver>> CreateModelSaver(const Model& model) {
  std::vector<Node*> vars;
  for (Node* n : model.scope.graph()->nodes()) {
    if (n->op() == "Variable") vars.push_back(n);
  }
  std::vector<std::string> names;
  for (Node* n : vars) names.push_back(n->name());
  std::sort(names.begin(), names.end());
  auto is_group = [&](const std::string& name) {
    // In sorted order every name that extends `name + "/"` follows it closely.
    auto it = std::upper_bound(names.begin(), names.end(), name);
    for (; it != names.end() && it->compare(0, name.size(), name) == 0; ++it) {
      if (it->size() > name.size() && (*it)[name.size()] == '/') return true;
    }
    return false;
  };
  std::vector<std::pair<std::string, Output>> entries;
  for (Node* n : vars) {
    entries.push_back({is_group(n->name()) ? n->name() + "/value" : n->name(), Output(n)});
  }
  return Saver::Create(model.scope, entries);
}

}  // namespace fb::experiments
