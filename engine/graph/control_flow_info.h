#pragma once
// Static control-flow structure of a graph (whitepaper 4.4, after TensorFlow's
// BuildControlFlowInfo): which loop frame every node belongs to. Frames are named by their Enter
// nodes' `frame_name`; "" is the root frame. Enter nodes belong to the frame they enter; an Exit
// runs in the loop frame it leaves and its output lives in the parent frame.
// Used by autodiff (loop gradients), the client builders and partitioning.
#include <map>
#include <string>
#include <vector>

#include "engine/graph/graph.h"

namespace fb {

class ControlFlowInfo {
 public:
  // InvalidArgument naming the node when a node is reached from two different frames, an Exit
  // leaves the root frame, or two Enters give one frame different parents.
  // With strict = false, conflicts are not errors (the first frame found wins): for graphs under
  // construction, such as a gradient loop whose body is being built.
  static StatusOr<ControlFlowInfo> Build(const Graph& g, bool strict = true);
  // Whether `n` existed when the info was built.
  bool Knows(const Node* n) const { return n->id() < static_cast<int>(out_frame_.size()); }

  // The frame `n`'s outputs live in.
  const std::string& frame(const Node* n) const { return out_frame_[n->id()]; }
  // The frame `n` runs in: the loop frame for an Exit, frame(n) otherwise.
  const std::string& exec_frame(const Node* n) const { return exec_frame_[n->id()]; }
  // The frame enclosing `frame` ("" for loops at the top level).
  const std::string& parent(const std::string& frame) const;
  // Whether `frame` is `ancestor` or nested (at any depth) inside it.
  bool IsWithin(const std::string& frame, const std::string& ancestor) const;
  // The child of `ancestor` on the path to `frame` (frame nested inside ancestor), or "".
  std::string ChildOnPath(const std::string& frame, const std::string& ancestor) const;
  const std::map<std::string, std::string>& frames() const { return parent_; }

 private:
  std::vector<std::string> out_frame_, exec_frame_;  // by node id
  std::map<std::string, std::string> parent_;        // frame -> enclosing frame
};

}  // namespace fb
