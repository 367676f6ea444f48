// Reductions of whitepaper Table 1 (Sum, Mean, Max, Min, ArgMax), with TensorFlow's signature:
// the axes are a tensor input "reduction_indices: Tidx" (int32 by default, negative axes count
// from the end, duplicates allowed) and attr keep_dims keeps reduced axes as size 1.
// Kernels: kernels/cpu/reduction_kernels.cc; gradients: engine/autodiff/math_grad_reduction.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/math_reduction_util.h"

namespace fb {
namespace {

const char* const kReductions[][2] = {
    {"Sum", "Sum of the elements along the reduced axes (0 over an empty axis)."},
    {"Mean", "Mean of the elements along the reduced axes (integer mean truncates; over an "
             "empty axis NaN for floats, 0 for integers)."},
    {"Max", "Maximum along the reduced axes (the lowest value of T over an empty axis; NaN if "
            "any reduced element is NaN)."},
    {"Min", "Minimum along the reduced axes (the highest value of T over an empty axis; NaN if "
            "any reduced element is NaN)."},
};

const bool kRegistered = [] {
  for (const auto& [name, doc] : kReductions)
    OpRegistry::Global()->Register(
        OpDefBuilder(name)
            .Input("input: T")
            .Input("reduction_indices: Tidx")
            .Output("output: T")
            .Attr("keep_dims: bool = false")
            .Attr("T: {float, double, int32, int64}")
            .Attr("Tidx: {int32, int64} = \"int32\"")
            .SetShapeFn(ReductionShape)
            .Doc(std::string(doc) +
                 " reduction_indices: scalar or vector of axes in [-rank, rank); an empty vector "
                 "reduces nothing. Output: input's shape without the reduced axes (kept as 1 with "
                 "keep_dims)."));
  return true;
}();

}  // namespace

REGISTER_OP("ArgMax")
    .Input("input: T")
    .Input("dimension: Tidx")
    .Output("output: output_type")
    .Attr("T: {float, double, int32, int64}")
    .Attr("Tidx: {int32, int64} = \"int32\"")
    .Attr("output_type: {int32, int64} = \"int64\"")
    .SetShapeFn(ArgMaxShape)
    .Doc("Index of the largest value along the scalar axis `dimension` (the first on ties; the "
         "first NaN if there is one, as NumPy). "
         "Output: input's shape without that axis. InvalidArgument if the "
         "axis is empty.");

}  // namespace fb
