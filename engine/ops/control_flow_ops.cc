// Control-flow ops (whitepaper 4.4, after TensorFlow's control_flow_ops.cc): Switch and Merge
// build conditionals; Enter, Exit, NextIteration and LoopCond build loops whose iterations the
// executor runs as tagged (frame, iteration) tokens. Values on an untaken Switch branch are
// "dead": consumers are skipped and deadness propagates until a Merge. ControlTrigger is a NoOp
// that is never dead (it orders nodes across taken and untaken branches).
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

namespace {
Status SwitchShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  c->set_output(1, c->input(0));
  return Status::OK();
}

// Merge: the output shape is the inputs' shape where they agree, else unknown dims.
Status MergeShape(InferenceContext* c) {
  PartialShape out = c->input(0);
  for (int i = 1; i < c->num_inputs() && out; ++i) {
    const PartialShape& in = c->input(i);
    if (!in || in->rank() != out->rank()) {
      out = std::nullopt;
      break;
    }
    for (int d = 0; d < out->rank(); ++d)
      if (out->dim_size(d) != in->dim_size(d)) out->set_dim(d, -1);
  }
  c->set_output(0, out);
  c->set_output(1, TensorShape{});
  return Status::OK();
}
}  // namespace

REGISTER_OP("Switch")
    .Input("data: T")
    .Input("pred: bool")
    .Output("output_false: T")
    .Output("output_true: T")
    .Attr("T: type")
    .SetShapeFn(SwitchShape)
    .Doc("Forwards `data` to output_true when the scalar `pred` is true, else to output_false; "
         "the other output is dead (4.4).");

REGISTER_OP("Merge")
    .Input("inputs: N * T")
    .Output("output: T")
    .Output("value_index: int32")
    .Attr("T: type")
    .Attr("N: int >= 1")
    .SetShapeFn(MergeShape)
    .Doc("Forwards the first input that is not dead, and its index. Runs as soon as one live "
         "input arrives; dead only when every input is dead (4.4).");

REGISTER_OP("Enter")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .Attr("frame_name: string")
    .Attr("is_constant: bool = false")
    .Attr("parallel_iterations: int = 10")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Moves `data` into the child frame `frame_name` (iteration 0). A constant Enter makes "
         "`data` available to every iteration (a loop invariant). At most parallel_iterations "
         "iterations of the frame run at once (4.4).");

REGISTER_OP("Exit")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Moves `data` from a loop frame to its parent frame (4.4).");

REGISTER_OP("NextIteration")
    .Input("data: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Moves `data` to the next iteration of the current frame (4.4).");

REGISTER_OP("LoopCond")
    .Input("input: bool")
    .Output("output: bool")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("Forwards the loop predicate; marks the node whose value decides whether a loop frame "
         "runs another iteration (4.4: the control-loop state machine reads it).");

REGISTER_OP("ControlTrigger")
    .Doc("Does nothing; unlike NoOp it runs (and is live) even when its control inputs are dead.");

}  // namespace fb
