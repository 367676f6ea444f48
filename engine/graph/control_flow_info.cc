#include "engine/graph/control_flow_info.h"

#include <deque>

namespace fb {

namespace {
const std::string kRootFrame;
}  // namespace

const std::string& ControlFlowInfo::parent(const std::string& frame) const {
  auto it = parent_.find(frame);
  return it == parent_.end() ? kRootFrame : it->second;
}

bool ControlFlowInfo::IsWithin(const std::string& frame, const std::string& ancestor) const {
  for (std::string f = frame;; f = parent(f)) {
    if (f == ancestor) return true;
    if (f.empty()) return false;
  }
}

std::string ControlFlowInfo::ChildOnPath(const std::string& frame,
                                         const std::string& ancestor) const {
  for (std::string f = frame; !f.empty(); f = parent(f))
    if (parent(f) == ancestor) return f;
  return "";
}

StatusOr<ControlFlowInfo> ControlFlowInfo::Build(const Graph& g, bool strict) {
  ControlFlowInfo info;
  const int n_ids = g.num_node_ids();
  info.out_frame_.assign(n_ids, "");
  info.exec_frame_.assign(n_ids, "");
  std::vector<bool> seen(n_ids, false);
  std::deque<Node*> queue;
  for (Node* n : g.nodes())
    if (n->in_edges().empty()) {
      seen[n->id()] = true;
      queue.push_back(n);
    }
  while (!queue.empty()) {
    Node* n = queue.front();
    queue.pop_front();
    const std::string& from = info.out_frame_[n->id()];
    for (const Edge* e : n->out_edges()) {
      Node* m = e->dst;
      std::string exec = from, out = from;
      if (m->op() == "Enter") {
        std::string name;
        RETURN_IF_ERROR(GetNodeAttr(m->def().attrs, "frame_name", &name));
        auto [it, inserted] = info.parent_.emplace(name, from);
        if (!inserted && it->second != from && strict)
          return InvalidArgument("Enter '", m->name(), "': frame '", name, "' is entered from '",
                                 from, "' and from '", it->second, "'");
        exec = out = name;
      } else if (m->op() == "Exit") {
        if (from.empty() && strict)
          return InvalidArgument("Exit '", m->name(), "' is not inside a loop frame");
        out = info.parent(from);
      }
      if (seen[m->id()]) {
        if (info.exec_frame_[m->id()] != exec && strict)
          return InvalidArgument("node '", m->name(), "' (", m->op(), ") has inputs from frame '",
                                 info.exec_frame_[m->id()], "' and from frame '", exec,
                                 "' (a value must enter a loop through Enter)");
        continue;
      }
      seen[m->id()] = true;
      info.exec_frame_[m->id()] = exec;
      info.out_frame_[m->id()] = out;
      queue.push_back(m);
    }
  }
  return info;
}

}  // namespace fb
