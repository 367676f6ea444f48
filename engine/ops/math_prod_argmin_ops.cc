// Prod and ArgMin, the reductions of whitepaper Table 1 beside Sum, Mean, Max, Min and ArgMax
// (math_reduction_ops.cc), with the same TensorFlow signatures and shape functions
// (math_reduction_util.h). Kernels: kernels/cpu/prod_kernels.cc, kernels/cpu/argmin_kernels.cc;
// Prod's gradient: engine/autodiff/math_grad_prod.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/math_reduction_util.h"

namespace fb {

REGISTER_OP("Prod")
    .Input("input: T")
    .Input("reduction_indices: Tidx")
    .Output("output: T")
    .Attr("keep_dims: bool = false")
    .Attr("T: {float, double, int32, int64}")
    .Attr("Tidx: {int32, int64} = \"int32\"")
    .SetShapeFn(ReductionShape)
    .Doc(
        "Product of the elements along the reduced axes (1 over an empty axis; TensorFlow's "
        "Prod). reduction_indices: scalar or vector of axes in [-rank, rank); an empty vector "
        "reduces nothing. Output: input's shape without the reduced axes (kept as 1 with "
        "keep_dims). Integer products wrap around on overflow.");

REGISTER_OP("ArgMin")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {float, double, int32, int64}")
    .Attr("Tidx: {int32, int64} = \"int32\"")
    .Attr("output_type: {int32, int64} = \"int64\"")
    .SetShapeFn(ArgMaxShape)
    .Doc(
        "Index of the smallest value along the scalar axis `dimension` (the first on ties; "
        "TensorFlow's ArgMin). NaN as NumPy's argmin: the index of the first NaN wins. Output: "
        "input's shape without that axis. InvalidArgument if the axis is empty.");

}  // namespace fb
