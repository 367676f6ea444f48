// Output propagation and the frame/iteration bookkeeping of the executor (whitepaper 4.4), after
// TensorFlow's executor: Enter moves a value into a child frame, Exit back to the parent,
// NextIteration to the next iteration (at most `parallel_iterations` in flight); Switch outputs
// on the untaken branch are dead and deadness propagates until a Merge.
#include "engine/runtime/executor_state.h"

namespace fb {

namespace {
// A frame's id is a hash of its name "parent_id;parent_iter;frame_name" (TensorFlow does the
// same), so that every partition of a step, in any process, gives one frame the same id: Send
// and Recv inside loops key their transfers by it. FNV-1a, never 0 (the root frame's id).
int64_t FrameId(const std::string& name) {
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : name) h = (h ^ c) * 1099511628211ull;
  return static_cast<int64_t>(h >> 1) | 1;
}
}  // namespace

void ExecutorState::ActivateNodes(const NodeItem& item, bool is_dead, FrameState* frame,
                                  int64_t iter, const std::vector<Entry>& outputs,
                                  const std::vector<bool>& dead_outputs, TaggedNodeSeq* ready,
                                  std::vector<Entry>* consumable) {
  IterationState* it = frame->GetIteration(iter);
  FB_CHECK(it != nullptr) << "no iteration " << iter << " in frame " << frame->frame_name;
  for (const OutEdgeInfo& e : item.out_edges) {
    const NodeItem& dst = impl_.item(e.dst_id);
    const int id = e.dst_id;
    bool dst_dead = false, dst_ready = false, dst_need_input = false;
    if (e.output_slot == kControlSlot) {
      if (dst.is_merge) {
        it->pending[id] -= 2;
        int count = it->pending[id];
        dst_dead = it->dead_count[id] == dst.num_inputs;
        dst_ready = count == 0 || (count == 1 && dst_dead);
      } else {
        if (is_dead) ++it->dead_count[id];
        dst_ready = --it->pending[id] == 0;
        dst_dead = it->dead_count[id] > 0;
      }
    } else {
      bool out_dead = is_dead || dead_outputs[e.output_slot] || !outputs[e.output_slot].has_value;
      if (dst.is_merge) {
        if (out_dead) {
          ++it->dead_count[id];
          dst_dead = it->dead_count[id] == dst.num_inputs;
          dst_ready = it->pending[id] == 1 && dst_dead;
        } else if (it->pending[id] & 1) {
          it->pending[id] &= ~1;  // the first live input wins
          dst_need_input = true;
          dst_ready = it->pending[id] == 0;
        }
      } else {
        if (out_dead) ++it->dead_count[id];
        dst_need_input = !out_dead;
        dst_ready = --it->pending[id] == 0;
        dst_dead = it->dead_count[id] > 0;
      }
    }
    if (dst_need_input) {
      Entry& slot = it->inputs[dst.input_start + e.input_slot];
      if (consumable != nullptr && e.last_use) slot = std::move((*consumable)[e.output_slot]);
      else slot = outputs[e.output_slot];
      it->filled.push_back(dst.input_start + e.input_slot);
    }
    if (dst_ready) {
      if (dst.is_control_trigger) dst_dead = false;
      ready->push_back({id, frame, iter, dst_dead});
      ++it->outstanding_ops;
    }
  }
}

void ExecutorState::PropagateOutputs(const TaggedNode& tagged, const NodeItem& item,
                                     std::vector<Entry>* outputs,
                                     std::vector<bool>* dead_outputs, TaggedNodeSeq* ready) {
  FrameState* input_frame = tagged.frame;
  const int64_t input_iter = tagged.iter;
  const bool is_dead = tagged.is_dead;
  bool is_frame_done = false;
  auto decrement = [&]() {  // with input_frame->mu held
    IterationState* it = input_frame->GetIteration(input_iter);
    if (--it->outstanding_ops != 0) return false;
    CleanupFramesIterations(input_frame, input_iter, ready);
    return IsFrameDone(input_frame);
  };
  if (!item.is_enter && !item.is_exit && !item.is_next_iteration) {
    std::lock_guard<std::mutex> l(input_frame->mu);
    ActivateNodes(item, is_dead, input_frame, input_iter, *outputs, *dead_outputs, ready, outputs);
    is_frame_done = decrement();
  } else if (item.is_enter) {
    FrameState* out = FindOrCreateChildFrame(input_frame, input_iter, item);
    bool child_done = false;
    {
      std::lock_guard<std::mutex> l(out->mu);
      if (item.is_constant_enter) {
        out->inv_values.emplace_back(tagged.id, std::vector<Entry>{(*outputs)[0]});
        for (int64_t i = out->iteration_count - out->num_outstanding_iterations + 1;
             i <= out->iteration_count; ++i)
          ActivateNodes(item, is_dead, out, i, *outputs, *dead_outputs, ready);
      } else {
        ActivateNodes(item, is_dead, out, 0, *outputs, *dead_outputs, ready);
      }
      // A frame whose inputs are all dead runs nothing; it is done once its last Enter ran.
      if (--out->num_pending_inputs == 0) {
        CleanupFramesIterations(out, 0, ready);
        child_done = IsFrameDone(out);
      }
    }
    if (child_done) FinishFrame(out, ready);
    std::lock_guard<std::mutex> l(input_frame->mu);
    is_frame_done = decrement();
  } else if (item.is_exit) {
    bool dead = is_dead || (*dead_outputs)[0] || !(*outputs)[0].has_value;
    if (dead) {
      std::lock_guard<std::mutex> l(input_frame->mu);
      if (input_iter == input_frame->iteration_count) input_frame->dead_exits.push_back(tagged.id);
      is_frame_done = decrement();
    } else {
      FrameState* out = input_frame->parent_frame;
      {
        std::lock_guard<std::mutex> l(out->mu);
        ActivateNodes(item, false, out, input_frame->parent_iter, *outputs, *dead_outputs, ready);
      }
      std::lock_guard<std::mutex> l(input_frame->mu);
      is_frame_done = decrement();
    }
  } else {  // NextIteration
    std::lock_guard<std::mutex> l(input_frame->mu);
    bool dead = is_dead || !(*outputs)[0].has_value;
    if (!dead) {
      if (input_iter == input_frame->iteration_count &&
          input_frame->num_outstanding_iterations == input_frame->max_parallel_iterations) {
        input_frame->next_iter_roots.emplace_back(tagged.id, (*outputs)[0]);
      } else {
        if (input_iter == input_frame->iteration_count) IncrementIteration(input_frame, ready);
        ActivateNodes(item, false, input_frame, input_iter + 1, *outputs, *dead_outputs, ready);
      }
    }
    is_frame_done = decrement();
  }
  if (is_frame_done) FinishFrame(input_frame, ready);
}

void ExecutorState::FinishFrame(FrameState* frame, TaggedNodeSeq* ready) {
  FrameState* parent = frame->parent_frame;
  int64_t parent_iter = frame->parent_iter;
  DeleteFrame(frame, ready);
  bool parent_done;
  {
    std::lock_guard<std::mutex> l(parent->mu);
    --parent->GetIteration(parent_iter)->outstanding_frame_count;
    CleanupFramesIterations(parent, parent_iter, ready);
    parent_done = IsFrameDone(parent);
  }
  if (parent_done) FinishFrame(parent, ready);
}

FrameState* ExecutorState::FindOrCreateChildFrame(FrameState* frame, int64_t iter,
                                                  const NodeItem& enter) {
  std::string key = std::to_string(frame->frame_id) + ";" + std::to_string(iter) + ";" +
                    enter.frame_name;
  std::lock_guard<std::mutex> l(child_frames_mu_);
  auto it = child_frames_.find(key);
  if (it != child_frames_.end()) return it->second.get();
  auto child = std::make_unique<FrameState>();
  child->frame_name = key;
  child->frame_id = FrameId(key);
  child->parent_frame = frame;
  child->parent_iter = iter;
  child->max_parallel_iterations = std::max(1, enter.parallel_iterations);
  child->num_pending_inputs = impl_.FrameInputCount(enter.frame_name);
  child->iterations[0] = impl_.NewIteration();
  {
    std::lock_guard<std::mutex> pl(frame->mu);
    ++frame->GetIteration(iter)->outstanding_frame_count;
  }
  FrameState* raw = child.get();
  child_frames_[key] = std::move(child);
  return raw;
}

void ExecutorState::IncrementIteration(FrameState* frame, TaggedNodeSeq* ready) {
  int64_t next = ++frame->iteration_count;
  frame->iterations[next] = impl_.NewIteration();
  ++frame->num_outstanding_iterations;
  frame->dead_exits.clear();
  auto roots = std::move(frame->next_iter_roots);
  frame->next_iter_roots.clear();
  for (auto& [id, entry] : roots) {
    std::vector<Entry> outs{entry};
    ActivateNodes(impl_.item(id), !entry.has_value, frame, next, outs, {false}, ready);
  }
  ActivateLoopInvariants(frame, next, ready);
}

void ExecutorState::ActivateLoopInvariants(FrameState* frame, int64_t iter, TaggedNodeSeq* ready) {
  static const std::vector<bool> kLive{false};
  for (const auto& [id, outs] : frame->inv_values)
    ActivateNodes(impl_.item(id), !outs[0].has_value, frame, iter, outs, kLive, ready);
}

bool ExecutorState::IsIterationDone(FrameState* frame, int64_t iter) {
  IterationState* it = frame->GetIteration(iter);
  if (!it || it->outstanding_ops != 0 || it->outstanding_frame_count != 0) return false;
  if (iter == 0) return frame->num_pending_inputs == 0;
  return frame->GetIteration(iter - 1) == nullptr;
}

bool ExecutorState::IsFrameDone(FrameState* frame) {
  return frame != &root_frame_ && frame->num_pending_inputs == 0 &&
         frame->num_outstanding_iterations == 0;
}

void ExecutorState::CleanupFramesIterations(FrameState* frame, int64_t iter, TaggedNodeSeq* ready) {
  if (frame == &root_frame_) return;
  int64_t curr = iter;
  while (curr <= frame->iteration_count && IsIterationDone(frame, curr)) {
    auto done = frame->iterations.find(curr);
    impl_.RecycleIteration(std::move(done->second));
    frame->iterations.erase(done);
    --frame->num_outstanding_iterations;
    ++curr;
    if (!frame->next_iter_roots.empty()) IncrementIteration(frame, ready);
  }
}

void ExecutorState::DeleteFrame(FrameState* frame, TaggedNodeSeq* ready) {
  // Dead Exit nodes of the last iteration carry deadness to the parent frame.
  FrameState* parent = frame->parent_frame;
  {
    std::lock_guard<std::mutex> l(parent->mu);
    for (int id : frame->dead_exits) {
      const NodeItem& item = impl_.item(id);
      std::vector<Entry> outs(item.num_outputs);
      std::vector<bool> dead(item.num_outputs, true);
      ActivateNodes(item, true, parent, frame->parent_iter, outs, dead, ready);
    }
  }
  std::lock_guard<std::mutex> l(child_frames_mu_);
  child_frames_.erase(frame->frame_name);
}

}  // namespace fb
