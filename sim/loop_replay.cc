#include "sim/loop_replay.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <deque>
#include <set>
#include <unordered_map>

#include "engine/graph/control_flow_info.h"
#include "engine/trace/trace_reader.h"

namespace fb::sim {

StatusOr<std::map<std::string, double>> NodeExecutionsFromTrace(const std::string& path) {
  ASSIGN_OR_RETURN(Trace trace, TraceReader::Open(path));
  std::map<std::string, double> count;
  std::set<int64_t> steps;
  for (const EventRecord& e : trace.events) {
    if (e.kind != static_cast<int32_t>(EventKind::kCompute) || e.node < 0) continue;
    count[trace.str(e.node)] += 1;
    steps.insert(e.step);
  }
  for (auto& [node, c] : count) c /= static_cast<double>(std::max<size_t>(1, steps.size()));
  return count;
}

StatusOr<int64_t> ParseLoopIterations(const std::string& text) {
  if (text.empty()) return -1;
  errno = 0;
  char* end = nullptr;
  const long long v = std::strtoll(text.c_str(), &end, 10);
  if (end == text.c_str() || *end != '\0' || errno == ERANGE || v < 0)
    return InvalidArgument("--loop-iterations must be an integer >= 0, got '", text, "'");
  return static_cast<int64_t>(v);
}

namespace {

struct Where {
  int32_t partition = -1, node = -1;
};

bool IsCond(const std::string& op) {
  return op == "Merge" || op == "RefMerge" || op == "Switch" || op == "RefSwitch" ||
         op == "LoopCond";
}

class LoopPlanner {
 public:
  LoopPlanner(const Graph& g, const ControlFlowInfo& info, const LoopCounts& counts,
              SimProgram* program)
      : g_(g), info_(info), counts_(counts), program_(*program) {
    for (size_t p = 0; p < program->partitions.size(); ++p)
      for (size_t i = 0; i < program->partitions[p].nodes.size(); ++i)
        where_[program->partitions[p].nodes[i].name] = {static_cast<int32_t>(p),
                                                        static_cast<int32_t>(i)};
  }

  Status Run() {
    for (Node* n : g_.nodes()) {
      const std::string& f = info_.exec_frame(n);
      if (f.empty() || !where_.count(n->name())) continue;
      frame_nodes_[f].push_back(n);
      if (n->op() == "NextIteration") next_[f].push_back(n);
    }
    for (const auto& [frame, nodes] : frame_nodes_) RETURN_IF_ERROR(CheckOneDevice(frame, nodes));
    for (const auto& [frame, nodes] : frame_nodes_) {
      ASSIGN_OR_RETURN(double iterations, Iterations(frame));
      const std::set<const Node*> cond = CondNodes(frame);
      const double instances = Instances(frame);
      for (const Node* n : nodes) {
        const bool boundary = n->op() == "Enter" || n->op() == "RefEnter" || n->op() == "Exit" ||
                              n->op() == "RefExit";
        double executions = boundary        ? instances
                            : cond.count(n) ? instances * (iterations + 1)
                                            : instances * iterations;
        auto measured = counts_.executions_per_step.find(n->name());
        if (measured != counts_.executions_per_step.end()) executions = measured->second;
        SimNode& sn = Node_(n);
        sn.compute_s *= executions;
        sn.executions = static_cast<int64_t>(executions + 0.5);
      }
      BreakBackEdges(frame);
    }
    return Status::OK();
  }

 private:
  SimNode& Node_(const Node* n) {
    const Where w = where_.at(n->name());
    return program_.partitions[w.partition].nodes[w.node];
  }

  Status CheckOneDevice(const std::string& frame, const std::vector<const Node*>& nodes) {
    const int32_t p0 = where_.at(nodes[0]->name()).partition;
    for (const Node* n : nodes)
      if (where_.at(n->name()).partition != p0)
        return Unimplemented("while loop frame '", frame, "' spans devices ",
                             program_.partitions[p0].device, " (node '", nodes[0]->name(),
                             "') and ", program_.partitions[where_.at(n->name()).partition].device,
                             " (node '", n->name(),
                             "'): the simulator replays a loop on one "
                             "device");
    return Status::OK();
  }

  // Executions of the frame's parent per step (1 for a loop at the top level).
  double Instances(const std::string& frame) {
    const std::string& parent = info_.parent(frame);
    if (parent.empty()) return 1;
    auto it = iterations_.find(parent);
    return (it == iterations_.end() ? 1 : it->second) * Instances(parent);
  }

  StatusOr<double> Iterations(const std::string& frame) {
    if (auto it = iterations_.find(frame); it != iterations_.end()) return it->second;
    const std::string& parent = info_.parent(frame);
    if (!parent.empty() && frame_nodes_.count(parent)) RETURN_IF_ERROR(Iterations(parent).status());
    const std::vector<const Node*>& next = next_[frame];
    double iterations = -1;
    for (const Node* n : next) {
      auto it = counts_.executions_per_step.find(n->name());
      if (it != counts_.executions_per_step.end()) iterations = it->second / Instances(frame);
    }
    if (iterations < 0 && counts_.iterations >= 0)
      iterations = static_cast<double>(counts_.iterations);
    if (iterations < 0)
      return InvalidArgument(
          "while loop frame '", frame, "'",
          next.empty() ? std::string() : " (NextIteration node '" + next[0]->name() + "')",
          ": the simulator replays a loop for its iteration count; give "
          "--loop-iterations N or a measured trace of the loop "
          "(--cost-model measured:TRACE.h5), or simulate an unrolled graph "
          "(e.g. --model lstm_lm_word_unrolled)");
    iterations_[frame] = iterations;
    return iterations;
  }

  // The predicate: LoopCond, Merge, Switch and what LoopCond reads back to the Merges.
  std::set<const Node*> CondNodes(const std::string& frame) {
    std::set<const Node*> out;
    std::deque<const Node*> todo;
    for (const Node* n : frame_nodes_[frame])
      if (IsCond(n->op())) {
        out.insert(n);
        if (n->op() == "LoopCond") todo.push_back(n);
      }
    while (!todo.empty()) {
      const Node* n = todo.front();
      todo.pop_front();
      for (const Edge* e : n->in_edges()) {
        const Node* src = e->src;
        if (!where_.count(src->name()) || info_.exec_frame(src) != frame) continue;
        if (src->op() == "Merge" || src->op() == "RefMerge" || !out.insert(src).second) continue;
        todo.push_back(src);
      }
    }
    return out;
  }

  // Removes NextIteration -> Merge and makes every Exit of the frame wait for its NextIterations.
  void BreakBackEdges(const std::string& frame) {
    for (const Node* next : next_[frame]) {
      const Where w = where_.at(next->name());
      SimPartition& p = program_.partitions[w.partition];
      SimNode& x = p.nodes[w.node];
      std::vector<int32_t> kept;
      for (int32_t s : x.succs) {
        SimNode& m = p.nodes[s];
        if (m.op != "Merge" && m.op != "RefMerge") {
          kept.push_back(s);
          continue;
        }
        --m.num_preds;
        auto it = std::find(m.data_inputs.begin(), m.data_inputs.end(), w.node);
        if (it != m.data_inputs.end()) {
          m.data_inputs.erase(it);
          --x.data_consumers;
        }
      }
      x.succs = kept;
      for (const Node* n : frame_nodes_[frame])
        if (n->op() == "Exit" || n->op() == "RefExit") {
          x.succs.push_back(where_.at(n->name()).node);
          ++p.nodes[where_.at(n->name()).node].num_preds;
        }
    }
  }

  const Graph& g_;
  const ControlFlowInfo& info_;
  const LoopCounts& counts_;
  SimProgram& program_;
  std::unordered_map<std::string, Where> where_;
  std::map<std::string, std::vector<const Node*>> frame_nodes_, next_;
  std::map<std::string, double> iterations_;
};

}  // namespace

Status PlanLoops(const Graph& placed, const LoopCounts& counts, SimProgram* program) {
  if (counts.iterations < -1)
    return InvalidArgument("--loop-iterations must be >= 0, got ", counts.iterations);
  bool loops = false;
  for (const Node* n : placed.nodes()) loops |= n->op() == "NextIteration";
  if (!loops) return Status::OK();
  ASSIGN_OR_RETURN(ControlFlowInfo info, ControlFlowInfo::Build(placed));
  LoopPlanner planner(placed, info, counts, program);
  return planner.Run();
}

}  // namespace fb::sim
