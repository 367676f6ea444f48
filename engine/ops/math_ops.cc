// Element-wise math ops of whitepaper Table 1 ("Element-wise mathematical operations: Add, Sub,
// Mul, Div, Exp, Log, Greater, Less, Equal, ..."), with TensorFlow's names, attrs and NumPy
// broadcasting for binary ops. Kernels: kernels/cpu/cwise_*.cc; gradients:
// engine/autodiff/math_grad.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {
namespace {

struct CwiseOpSpec {
  const char* name;
  const char* type_attr;
  const char* doc;
};

constexpr const char* kNumeric = "T: {float, double, int32, int64}";
constexpr const char* kFloating = "T: {float, double}";

// z = x (op) y with NumPy broadcasting: shapes are aligned at their last dimension and each pair
// of dimensions must be equal or contain a 1 (https://numpy.org/doc/stable/user/basics.broadcasting.html).
const CwiseOpSpec kBinaryOps[] = {
    {"Add", kNumeric, "z = x + y, broadcasting."},
    {"Sub", kNumeric, "z = x - y, broadcasting."},
    {"Mul", kNumeric, "z = x * y, broadcasting."},
    {"Div", kNumeric,
     "z = x / y, broadcasting. Integer division truncates toward zero, fails on a zero "
     "divisor (InvalidArgument) and wraps the lowest value divided by -1 to the lowest value "
     "(as NumPy and TensorFlow)."},
    {"Pow", kFloating, "z = x ^ y, broadcasting."},
    {"Maximum", kNumeric, "z = max(x, y), broadcasting; NaN if x or y is NaN."},
    {"Minimum", kNumeric, "z = min(x, y), broadcasting; NaN if x or y is NaN."},
};

const CwiseOpSpec kComparisonOps[] = {
    {"Greater", kNumeric, "z = (x > y) as bool, broadcasting."},
    {"Less", kNumeric, "z = (x < y) as bool, broadcasting."},
    {"Equal", "T: {float, double, int32, int64, bool}", "z = (x == y) as bool, broadcasting."},
    {"GreaterEqual", kNumeric, "z = (x >= y) as bool, broadcasting (TensorFlow's GreaterEqual)."},
    {"LessEqual", kNumeric, "z = (x <= y) as bool, broadcasting (TensorFlow's LessEqual)."},
    {"NotEqual", "T: {float, double, int32, int64, bool}",
     "z = (x != y) as bool, broadcasting (TensorFlow's NotEqual; true for NaN operands)."},
};

const CwiseOpSpec kUnaryOps[] = {
    {"Neg", kNumeric, "y = -x."},
    {"Square", kNumeric, "y = x * x."},
    {"Exp", kFloating, "y = e^x."},
    {"Log", kFloating, "y = ln(x) (natural logarithm; -inf at 0, NaN below)."},
    {"Sqrt", kFloating, "y = sqrt(x)."},
    {"Rsqrt", kFloating, "y = 1 / sqrt(x)."},
    {"Reciprocal", kFloating, "y = 1 / x."},
};

const bool kRegistered = [] {
  for (const CwiseOpSpec& op : kBinaryOps)
    OpRegistry::Global()->Register(OpDefBuilder(op.name)
                                       .Input("x: T")
                                       .Input("y: T")
                                       .Output("z: T")
                                       .Attr(op.type_attr)
                                       .SetShapeFn(shape_fns::BroadcastBinary)
                                       .Doc(op.doc));
  for (const CwiseOpSpec& op : kComparisonOps)
    OpRegistry::Global()->Register(OpDefBuilder(op.name)
                                       .Input("x: T")
                                       .Input("y: T")
                                       .Output("z: bool")
                                       .Attr(op.type_attr)
                                       .SetShapeFn(shape_fns::BroadcastBinary)
                                       .Doc(op.doc));
  for (const CwiseOpSpec& op : kUnaryOps)
    OpRegistry::Global()->Register(OpDefBuilder(op.name)
                                       .Input("x: T")
                                       .Output("y: T")
                                       .Attr(op.type_attr)
                                       .SetShapeFn(shape_fns::UnchangedShape)
                                       .Doc(op.doc));
  return true;
}();

constexpr const char* kCastTypes =
    "{float, double, half, bfloat16, int8, int16, int32, int64, uint8, uint16, uint32, uint64, "
    "bool}";

}  // namespace

REGISTER_OP("Cast")
    .Input("x: SrcT")
    .Output("y: DstT")
    .Attr(std::string("SrcT: ") + kCastTypes)
    .Attr(std::string("DstT: ") + kCastTypes)
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("y = x converted to DstT, element-wise. Float to integer truncates toward zero (values "
         "out of the target range are undefined, as in C++); anything to bool is x != 0; "
         "bool to numbers is 0 or 1; half and bfloat16 round to nearest even.");

REGISTER_OP("AddN")
    .Input("inputs: N * T")
    .Output("sum: T")
    .Attr("N: int >= 1")
    .Attr(kNumeric)
    .SetShapeFn([](InferenceContext* c) {
      PartialShape out = c->input(0);
      for (int i = 1; i < c->num_inputs(); ++i) {
        const PartialShape& in = c->input(i);
        if (!in) continue;
        if (!out) {
          out = in;
          continue;
        }
        if (out->rank() != in->rank())
          return c->Error("inputs must have equal shapes, got ", out->DebugString(), " and ",
                          in->DebugString());
        for (int d = 0; d < in->rank(); ++d) {
          int64_t merged;
          RETURN_IF_ERROR(c->MergeDim(out->dim_size(d), in->dim_size(d), &merged,
                                      "input " + std::to_string(i)));
          out->set_dim(d, merged);
        }
      }
      c->set_output(0, out);
      return Status::OK();
    })
    .Doc("Sum of N tensors of equal shape (no broadcasting). Used by autodiff (4.1) to add the "
         "gradients reaching one tensor.");

}  // namespace fb
