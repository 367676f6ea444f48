// Queues (whitepaper 4.6): FIFOQueue and RandomShuffleQueue hold tuples of tensors in their
// device's ResourceMgr (container, shared_name), so producers and consumers in different steps,
// Sessions or threads meet there. The queue ops take the queue's handle (a string scalar). The
// blocking ops (Enqueue when full, Dequeue when empty) are asynchronous kernels (5.3): they wait
// without holding a thread. Close makes later enqueues fail with Cancelled and wakes dequeuers
// that can no longer be served with OutOfRange.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

namespace {
// Dequeue outputs: the declared component shapes when given, else unknown.
Status DequeueShape(InferenceContext* c) {
  std::vector<TensorShape> shapes;
  (void)c->GetAttr("shapes", &shapes);
  for (int i = 0; i < c->num_outputs(); ++i)
    c->set_output(i, i < static_cast<int>(shapes.size()) ? PartialShape(shapes[i]) : std::nullopt);
  return Status::OK();
}
}  // namespace

REGISTER_OP("FIFOQueue")
    .Output("handle: string")
    .Attr("component_types: list(type)")
    .Attr("shapes: list(shape) = []")
    .Attr("capacity: int = -1")
    .Attr("container: string = \"\"")
    .Attr("shared_name: string = \"\"")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A first-in first-out queue of tuples with `component_types` (and `shapes`, when given: "
         "every element must match). capacity < 0: unbounded. Shared by name (default: the node "
         "name) in `container`.");

REGISTER_OP("RandomShuffleQueue")
    .Output("handle: string")
    .Attr("component_types: list(type)")
    .Attr("shapes: list(shape) = []")
    .Attr("capacity: int = -1")
    .Attr("min_after_dequeue: int = 0")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("container: string = \"\"")
    .Attr("shared_name: string = \"\"")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("A queue that dequeues a uniformly random element; a dequeue waits until more than "
         "min_after_dequeue elements are held (or the queue is closed), so outputs stay mixed. "
         "seed = seed2 = 0: nondeterministic; otherwise the order is reproducible.");

REGISTER_OP("QueueEnqueue")
    .Input("handle: string")
    .Input("components: Tcomponents")
    .Attr("Tcomponents: list(type)")
    .SetIsStateful()
    .Doc("Adds one element; waits while the queue is full. Cancelled if the queue is closed.");

REGISTER_OP("QueueEnqueueMany")
    .Input("handle: string")
    .Input("components: Tcomponents")
    .Attr("Tcomponents: list(type)")
    .SetIsStateful()
    .Doc("Splits each component along dimension 0 (all the same size) and adds the elements in "
         "order, waiting for room as needed.");

REGISTER_OP("QueueDequeue")
    .Input("handle: string")
    .Output("components: component_types")
    .Attr("component_types: list(type)")
    .SetIsStateful()
    .SetShapeFn(DequeueShape)
    .Doc("Removes one element; waits while the queue is empty. OutOfRange once it is closed and "
         "empty.");

REGISTER_OP("QueueDequeueMany")
    .Input("handle: string")
    .Input("n: int32")
    .Output("components: component_types")
    .Attr("component_types: list(type)")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unknown)
    .Doc("Removes n elements, concatenated along a new dimension 0; waits until n are taken. "
         "OutOfRange if the queue closes before (the elements taken go back to the queue).");

REGISTER_OP("QueueClose")
    .Input("handle: string")
    .Attr("cancel_pending_enqueues: bool = false")
    .SetIsStateful()
    .Doc("Closes the queue: later enqueues fail; waiting dequeues that cannot be served fail "
         "with OutOfRange; waiting enqueues fail too when cancel_pending_enqueues.");

REGISTER_OP("QueueSize")
    .Input("handle: string")
    .Output("size: int32")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("The number of elements in the queue.");

}  // namespace fb
