#pragma once
// Client wrappers for the queue ops (engine/ops/data_flow_ops.cc, whitepaper 4.6). A queue op
// returns the queue's handle (string scalar); the other ops take it. Build the enqueue, dequeue
// and close ops on the queue's device (the default placement keeps them together).
//
//   auto q = ops::FIFOQueue(root, {DataType::kFloat}, {TensorShape{2}}, /*capacity=*/8);
//   Node* enq = ops::QueueEnqueue(root, q, {x});
//   auto batch = ops::QueueDequeueMany(root, q, ops::Const(root, 4), {DataType::kFloat});
#include <vector>

#include "engine/client/scope.h"

namespace fb::ops {

struct QueueOptions {
  std::vector<TensorShape> shapes;  // empty: any shapes
  int64_t capacity = -1;            // < 0: unbounded
  std::string container, shared_name;
};

Output FIFOQueue(const Scope& s, const std::vector<DataType>& component_types,
                 const QueueOptions& options = {});
Output RandomShuffleQueue(const Scope& s, const std::vector<DataType>& component_types,
                          int64_t min_after_dequeue, int64_t seed, int64_t seed2,
                          const QueueOptions& options = {});
Node* QueueEnqueue(const Scope& s, Output handle, const std::vector<Output>& components);
// Each component's dimension 0 enumerates the elements.
Node* QueueEnqueueMany(const Scope& s, Output handle, const std::vector<Output>& components);
std::vector<Output> QueueDequeue(const Scope& s, Output handle,
                                 const std::vector<DataType>& component_types);
// n: int32 scalar; outputs [n, ...element shape].
std::vector<Output> QueueDequeueMany(const Scope& s, Output handle, Output n,
                                     const std::vector<DataType>& component_types);
Node* QueueClose(const Scope& s, Output handle, bool cancel_pending_enqueues = false);
Output QueueSize(const Scope& s, Output handle);

}  // namespace fb::ops
