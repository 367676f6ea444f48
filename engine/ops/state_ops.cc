// Stateful ops (whitepaper 4.7): Variable with container and shared_name, and the ops that
// update it. Variables live in the device's ResourceMgr, so they persist across Run calls and
// across Sessions that share devices and a container.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

namespace {
Status RefUpdateShape(InferenceContext* c) {
  c->set_output(0, c->input(0));
  return Status::OK();
}
}  // namespace

REGISTER_OP("Variable")
    .Output("ref: Ref(dtype)")
    .Attr("shape: shape")
    .Attr("dtype: type")
    .Attr("container: string = \"\"")
    .Attr("shared_name: string = \"\"")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      TensorShape shape;
      RETURN_IF_ERROR(c->GetAttr("shape", &shape));
      c->set_output(0, shape);
      return Status::OK();
    })
    .Doc("A mutable tensor that persists across steps, in `container` under `shared_name` "
         "(default: the node name). Reading it before an Assign is a FailedPrecondition error.");

REGISTER_OP("Assign")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: type")
    .Attr("validate_shape: bool = true")
    .SetIsStateful()
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, c->input(1));
      return Status::OK();
    })
    .Doc("ref = value. With validate_shape, an initialized ref must keep its shape.");

REGISTER_OP("AssignAdd")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: {float, double, int32, int64}")
    .SetIsStateful()
    .SetShapeFn(RefUpdateShape)
    .Doc("ref += value (same shape).");

REGISTER_OP("AssignSub")
    .Input("ref: Ref(T)")
    .Input("value: T")
    .Output("output_ref: Ref(T)")
    .Attr("T: {float, double, int32, int64}")
    .SetIsStateful()
    .SetShapeFn(RefUpdateShape)
    .Doc("ref -= value (same shape).");

REGISTER_OP("IsVariableInitialized")
    .Input("ref: Ref(dtype)")
    .Output("is_initialized: bool")
    .Attr("dtype: type")
    .SetShapeFn(shape_fns::ScalarShape)
    .Doc("Whether the variable has been assigned.");

REGISTER_OP("ResetContainer")
    .Attr("container: string")
    .SetIsStateful()
    .Doc("Drops every resource (Variables, queues) of `container` on this device (4.7).");

}  // namespace fb
