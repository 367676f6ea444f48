#include "engine/client/data_flow_ops.h"

namespace fb::ops {

namespace {
AttrMap QueueAttrs(const std::vector<DataType>& types, const QueueOptions& o) {
  return {{"component_types", types},
          {"shapes", o.shapes},
          {"capacity", o.capacity},
          {"container", o.container},
          {"shared_name", o.shared_name}};
}

std::vector<Output> Outputs(Node* n) {
  std::vector<Output> outs;
  if (n)
    for (int i = 0; i < n->num_outputs(); ++i) outs.push_back(Output(n, i));
  return outs;
}
}  // namespace

Output FIFOQueue(const Scope& s, const std::vector<DataType>& component_types,
                 const QueueOptions& options) {
  return Op(s, "FIFOQueue", {}, QueueAttrs(component_types, options));
}

Output RandomShuffleQueue(const Scope& s, const std::vector<DataType>& component_types,
                          int64_t min_after_dequeue, int64_t seed, int64_t seed2,
                          const QueueOptions& options) {
  AttrMap attrs = QueueAttrs(component_types, options);
  attrs["min_after_dequeue"] = min_after_dequeue;
  attrs["seed"] = seed;
  attrs["seed2"] = seed2;
  return Op(s, "RandomShuffleQueue", {}, attrs);
}

Node* QueueEnqueue(const Scope& s, Output handle, const std::vector<Output>& components) {
  return AddOpWithList(s, "QueueEnqueue", {{handle}, components});
}

Node* QueueEnqueueMany(const Scope& s, Output handle, const std::vector<Output>& components) {
  return AddOpWithList(s, "QueueEnqueueMany", {{handle}, components});
}

std::vector<Output> QueueDequeue(const Scope& s, Output handle,
                                 const std::vector<DataType>& component_types) {
  return Outputs(AddOp(s, "QueueDequeue", {handle}, {{"component_types", component_types}}));
}

std::vector<Output> QueueDequeueMany(const Scope& s, Output handle, Output n,
                                     const std::vector<DataType>& component_types) {
  return Outputs(
      AddOp(s, "QueueDequeueMany", {handle, n}, {{"component_types", component_types}}));
}

Node* QueueClose(const Scope& s, Output handle, bool cancel_pending_enqueues) {
  return AddOp(s, "QueueClose", {handle}, {{"cancel_pending_enqueues", cancel_pending_enqueues}});
}

Output QueueSize(const Scope& s, Output handle) { return Op(s, "QueueSize", {handle}); }

}  // namespace fb::ops
