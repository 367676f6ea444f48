// Forward accumulators for loop gradients (whitepaper 4.4; TensorFlow's GradLoopState "forward
// accumulator"): the forward loop pushes each value that the gradient loop needs, keyed by the
// forward iteration index, and the gradient loop, running iterations backwards, pops it by the
// same index. Keying by index (instead of a LIFO stack) lets forward iterations push in any
// order, so loops keep their parallel_iterations.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

REGISTER_OP("ForwardAccumulator")
    .Output("handle: string")
    .SetIsStateful()
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("Creates an empty accumulator for this step, frame and iteration in the device's "
         "ResourceMgr and returns its handle (a string scalar). It is deleted after its last Pop.");

REGISTER_OP("AccumulatorPush")
    .Input("handle: string")
    .Input("index: int32")
    .Input("value: T")
    .Attr("T: type")
    .SetIsStateful()
    .Doc("Saves `value` under the scalar `index`. AlreadyExists if the index is taken.");

REGISTER_OP("AccumulatorPop")
    .Input("handle: string")
    .Input("index: int32")
    .Output("value: T")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unknown)
    .Doc("Removes and returns the value saved under `index`. When none was pushed (the forward "
         "value was dead: it sat on an untaken branch) the output is dead. InvalidArgument if "
         "the value's dtype is not T.");

}  // namespace fb
