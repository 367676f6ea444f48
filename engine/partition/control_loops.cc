#include "engine/partition/control_loops.h"

#include <set>

#include "engine/partition/partition.h"

namespace fb {

namespace {

struct FrameDesc {
  Node* loop_cond = nullptr;
  int64_t parallel_iterations = 10;
};

StatusOr<std::map<std::string, FrameDesc>> DescribeFrames(const Graph& g,
                                                           const ControlFlowInfo& info) {
  std::map<std::string, FrameDesc> frames;
  for (Node* n : g.nodes()) {
    if (n->op() == "LoopCond") frames[info.exec_frame(n)].loop_cond = n;
    if (n->op() == "Enter")
      (void)GetNodeAttr(n->def().attrs, "parallel_iterations",
                        &frames[info.frame(n)].parallel_iterations);
  }
  for (const auto& [name, f] : frames)
    if (!f.loop_cond) return InvalidArgument("loop frame '", name, "' has no LoopCond node");
  return frames;
}

class ControlLoopBuilder {
 public:
  ControlLoopBuilder(const ControlFlowInfo& info, const std::map<std::string, FrameDesc>& frames,
                     std::map<std::string, GraphDef>* parts)
      : info_(info), frames_(frames), parts_(parts) {}

  // The pivot (Identity of the Switch's true output) of frame's state machine on `device`,
  // building it and its enclosing frames' machines on first use. Returns the Merge's name in
  // *merge.
  std::string Pivot(const std::string& frame, const std::string& device, std::string* merge) {
    auto key = std::make_pair(frame, device);
    auto it = built_.find(key);
    if (it != built_.end()) {
      if (merge) *merge = it->second.second;
      return it->second.first;
    }
    const std::string parent = info_.parent(frame);
    std::string parent_pivot = parent.empty() ? "" : Pivot(parent, device, nullptr);
    const FrameDesc& f = frames_.at(frame);
    const std::string base = frame + "/_control_loop/" + Suffix(device);
    const DataType dt = DataType::kFloat;
    NodeDef c{base + "/const", "Const", {}, device, {{"dtype", dt}, {"value", Tensor::Scalar(0.0f)}}};
    if (!parent_pivot.empty()) c.inputs.push_back("^" + parent_pivot);
    Add(device, c);
    Add(device, {base + "/enter", "Enter", {base + "/const"}, device,
                 {{"T", dt}, {"frame_name", frame}, {"is_constant", false},
                  {"parallel_iterations", f.parallel_iterations}}});
    Add(device, {base + "/merge", "Merge", {base + "/enter", base + "/next"}, device,
                 {{"T", dt}, {"N", int64_t{2}}}});
    std::string cond = LoopCondOn(frame, f, device, base);
    Add(device, {base + "/switch", "Switch", {base + "/merge", cond}, device, {{"T", dt}}});
    Add(device, {base + "/pivot", "Identity", {base + "/switch:1"}, device, {{"T", dt}}});
    Add(device, {base + "/next", "NextIteration", {base + "/pivot"}, device, {{"T", dt}}});
    built_[key] = {base + "/pivot", base + "/merge"};
    if (merge) *merge = base + "/merge";
    return base + "/pivot";
  }

 private:
  // The loop condition's value on `device`: the LoopCond itself, or a _Recv of it (triggered by
  // the Merge each iteration) with the matching _Send next to the LoopCond.
  std::string LoopCondOn(const std::string& frame, const FrameDesc& f, const std::string& device,
                         const std::string& base) {
    const Node* lc = f.loop_cond;
    if (lc->assigned_device() == device) return lc->name();
    const std::string& home = lc->assigned_device();
    const std::string tensor = base + "/loop_cond";
    AttrMap attrs{{"T", DataType::kBool}, {"tensor_name", tensor}, {"send_device", home},
                  {"recv_device", device}};
    Add(home, {base + "/cond_send", "_Send", {lc->name()}, home, attrs});
    Add(device, {base + "/cond_recv", "_Recv", {"^" + base + "/merge"}, device, attrs});
    (void)frame;
    return base + "/cond_recv";
  }

  void Add(const std::string& device, NodeDef d) { (*parts_)[device].nodes.push_back(std::move(d)); }

  static std::string Suffix(const std::string& dev) {
    std::string s = dev;
    for (char& c : s)
      if (c == '/' || c == ':') c = '_';
    return s;
  }

  const ControlFlowInfo& info_;
  const std::map<std::string, FrameDesc>& frames_;
  std::map<std::string, GraphDef>* parts_;
  std::map<std::pair<std::string, std::string>, std::pair<std::string, std::string>> built_;
};

}  // namespace

Status AddControlLoops(const Graph& g, const ControlFlowInfo& info,
                       const std::map<std::string, std::map<std::string, std::string>>& recv_frames,
                       std::map<std::string, GraphDef>* partitions) {
  bool any = false;
  for (const auto& [dev, recvs] : recv_frames)
    for (const auto& [recv, frame] : recvs) any = any || !frame.empty();
  if (!any) return Status::OK();
  ASSIGN_OR_RETURN(auto frames, DescribeFrames(g, info));
  ControlLoopBuilder builder(info, frames, partitions);
  for (const auto& [dev, recvs] : recv_frames) {
    std::map<std::string, std::string> merge_for_recv;
    for (const auto& [recv, frame] : recvs) {
      if (frame.empty()) continue;
      std::string merge;
      builder.Pivot(frame, dev, &merge);
      merge_for_recv[recv] = merge;
    }
    for (NodeDef& n : (*partitions)[dev].nodes) {
      auto it = merge_for_recv.find(n.name);
      if (it != merge_for_recv.end()) n.inputs.push_back("^" + it->second);
    }
  }
  return Status::OK();
}

}  // namespace fb
