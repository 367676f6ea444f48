// Array ops of whitepaper Table 1 that the engine itself relies on: Const, Placeholder,
// Identity, NoOp. (Further array ops live beside these, one family per file.)
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

REGISTER_OP("Const")
    .Output("output: dtype")
    .Attr("value: tensor")
    .Attr("dtype: type")
    .SetShapeFn([](InferenceContext* c) {
      Tensor value;
      RETURN_IF_ERROR(c->GetAttr("value", &value));
      c->set_output(0, value.shape());
      return Status::OK();
    })
    .Doc("A constant tensor `value` of type `dtype`.");

REGISTER_OP("Placeholder")
    .Output("output: dtype")
    .Attr("dtype: type")
    .Attr("shape: shape = \"unknown\"")
    .SetShapeFn([](InferenceContext* c) {
      TensorShape shape;
      RETURN_IF_ERROR(c->GetAttr("shape", &shape));
      if (IsUnknownRank(shape)) c->set_output(0, std::nullopt);
      else c->set_output(0, shape);
      return Status::OK();
    })
    .Doc("A value that must be fed on every Run (4.2). `shape` may have -1 dimensions; the "
         "default [-2] means any shape. Running it unfed is an error.");

REGISTER_OP("Identity")
    .Input("input: T")
    .Output("output: T")
    .Attr("T: type")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Returns its input (no copy).");

REGISTER_OP("NoOp").Doc("Does nothing; used as a target to group control dependencies.");

}  // namespace fb
