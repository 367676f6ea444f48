#include "engine/runtime/subgraph.h"

#include <map>

namespace fb {

namespace {
StatusOr<std::pair<Node*, int>> ResolveTensor(const Graph& g, const std::string& name,
                                              const char* what) {
  auto id = ParseTensorId(name);
  if (!id.ok() || id->IsControl())
    return InvalidArgument(what, " '", name, "' is not a tensor name (node:port)");
  Node* n = g.FindNode(id->node);
  if (!n) return NotFound(what, " '", name, "': no node named '", id->node, "' in the graph");
  if (id->index >= n->num_outputs())
    return InvalidArgument(what, " '", name, "': node '", n->name(), "' (", n->op(), ") has ",
                           n->num_outputs(), " outputs");
  return std::make_pair(n, id->index);
}
}  // namespace

int PruneForTargets(Graph* g, const std::vector<Node*>& roots) {
  std::vector<bool> keep(g->num_node_ids(), false);
  std::vector<Node*> stack(roots.begin(), roots.end());
  for (Node* n : roots) keep[n->id()] = true;
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    for (const Edge* e : n->in_edges())
      if (!keep[e->src->id()]) {
        keep[e->src->id()] = true;
        stack.push_back(e->src);
      }
  }
  int removed = 0;
  for (Node* n : g->nodes())
    if (!keep[n->id()]) {
      g->RemoveNode(n);
      ++removed;
    }
  return removed;
}

std::string ExecutionSignature(const std::vector<std::string>& feeds,
                               const std::vector<std::string>& fetches,
                               const std::vector<std::string>& targets) {
  std::string s;
  for (const auto* list : {&feeds, &fetches, &targets}) {
    for (const std::string& name : *list) s.append(name).push_back(',');
    s.push_back('|');
  }
  return s;
}

std::vector<PartialShape> DeclaredFeedShapes(const Graph& g, const std::vector<std::string>& feeds) {
  std::vector<PartialShape> shapes;
  for (const std::string& f : feeds) {
    PartialShape shape;
    auto id = ParseTensorId(f);
    const Node* n = id.ok() ? g.FindNode(id->node) : nullptr;
    TensorShape declared;
    if (n && n->op() == "Placeholder" && GetNodeAttr(n->def().attrs, "shape", &declared).ok() &&
        !IsUnknownRank(declared))
      shape = declared;
    shapes.push_back(shape);
  }
  return shapes;
}

Status RewriteGraphForExecution(Graph* g, const std::vector<std::string>& feeds,
                                const std::vector<std::string>& fetches,
                                const std::vector<std::string>& targets, RewriteResult* result) {
  std::vector<Node*> roots;
  std::map<std::string, Node*> feed_nodes;  // canonical "node:port" -> its _Feed node
  for (size_t i = 0; i < feeds.size(); ++i) {
    ASSIGN_OR_RETURN(auto src, ResolveTensor(*g, feeds[i], "feed"));
    auto [node, port] = src;
    std::string canonical = node->name() + ":" + std::to_string(port);
    if (feed_nodes.count(canonical))
      return InvalidArgument("tensor '", feeds[i], "' is fed more than once");
    DataType dt = node->output_type(port);
    NodeDef def{g->NewName("_feed/" + node->name() + "_" + std::to_string(port)), "_Feed", {},
                node->requested_device(), {{"T", dt}, {"index", static_cast<int64_t>(i)}}};
    ASSIGN_OR_RETURN(Node * feed, g->AddNode(def));
    feed->set_assigned_device(node->assigned_device());
    feed_nodes[canonical] = feed;
    std::vector<const Edge*> outs(node->out_edges().begin(), node->out_edges().end());
    for (const Edge* e : outs) {
      if (e->src_output != port) continue;
      Node* dst = e->dst;
      int in = e->dst_input;
      g->RemoveEdge(e);
      g->AddEdge(feed, 0, dst, in);
    }
    result->feed_types.push_back(dt);
  }
  for (size_t i = 0; i < fetches.size(); ++i) {
    ASSIGN_OR_RETURN(auto src, ResolveTensor(*g, fetches[i], "fetch"));
    auto [node, port] = src;
    // Fetching a fed tensor returns the fed value.
    auto fed = feed_nodes.find(node->name() + ":" + std::to_string(port));
    if (fed != feed_nodes.end()) node = fed->second, port = 0;
    DataType dt = node->output_type(port);
    NodeDef def{g->NewName("_fetch/" + node->name() + "_" + std::to_string(port)), "_Fetch", {},
                "", {{"T", dt}, {"index", static_cast<int64_t>(i)}}};
    ASSIGN_OR_RETURN(Node * fetch, g->AddNode(def));
    fetch->set_assigned_device(node->assigned_device());
    g->AddEdge(node, port, fetch, 0);
    roots.push_back(fetch);
    result->fetch_types.push_back(dt);
  }
  for (const std::string& t : targets) {
    std::string name = t[0] == '^' ? t.substr(1) : t;
    Node* n = g->FindNode(name);
    if (!n) return NotFound("target '", t, "': no node named '", name, "' in the graph");
    roots.push_back(n);
  }
  result->nodes_pruned = PruneForTargets(g, roots);
  return Status::OK();
}

}  // namespace fb
