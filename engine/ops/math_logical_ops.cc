// The remaining comparisons and the logical ops of whitepaper Table 1 ("Element-wise mathematical
// operations: ... Greater, Less, Equal, ..."), with TensorFlow's names and NumPy broadcasting
// (shape_fns::BroadcastBinary, as Greater/Less/Equal in math_ops.cc). Outputs are bool. NaN
// compares unequal to everything (IEEE 754): NotEqual(NaN, NaN) is true, the others false.
// Kernels: kernels/cpu/cwise_logical.cc. No gradients (bool outputs).
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {
namespace {

struct LogicalOpSpec {
  const char* name;
  const char* type_attr;
  const char* doc;
};

const LogicalOpSpec kComparisonOps[] = {
    {"GreaterEqual", "T: {float, double, int32, int64}",
     "z = (x >= y) as bool, broadcasting (TensorFlow's GreaterEqual)."},
    {"LessEqual", "T: {float, double, int32, int64}",
     "z = (x <= y) as bool, broadcasting (TensorFlow's LessEqual)."},
    {"NotEqual", "T: {float, double, int32, int64, bool}",
     "z = (x != y) as bool, broadcasting (TensorFlow's NotEqual; true for NaN operands)."},
};

const bool kRegistered = [] {
  for (const LogicalOpSpec& op : kComparisonOps)
    OpRegistry::Global()->Register(OpDefBuilder(op.name)
                                       .Input("x: T")
                                       .Input("y: T")
                                       .Output("z: bool")
                                       .Attr(op.type_attr)
                                       .SetShapeFn(shape_fns::BroadcastBinary)
                                       .Doc(op.doc));
  return true;
}();

}  // namespace

REGISTER_OP("LogicalAnd")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("z = x AND y, element-wise with broadcasting (TensorFlow's LogicalAnd).");

REGISTER_OP("LogicalOr")
    .Input("x: bool")
    .Input("y: bool")
    .Output("z: bool")
    .SetShapeFn(shape_fns::BroadcastBinary)
    .Doc("z = x OR y, element-wise with broadcasting (TensorFlow's LogicalOr).");

REGISTER_OP("LogicalNot")
    .Input("x: bool")
    .Output("y: bool")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("y = NOT x, element-wise (TensorFlow's LogicalNot).");

}  // namespace fb
