// Random ops of whitepaper Table 1 (used to initialise Variables): RandomUniform,
// RandomStandardNormal, TruncatedNormal. As in TensorFlow, numbers come from the counter-based
// Philox 4x32-10 generator (Salmon et al., SC'11), keyed by (seed, seed2): with either seed
// non-zero a node's sequence is reproducible and independent of the number of threads; with both
// zero the seeds are random. The ops are stateful: each Run draws fresh numbers, and graph passes
// never merge or constant-fold them.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/array_shape_util.h"

namespace fb {

namespace {

Status RandomShapeFn(InferenceContext* c) {
  RETURN_IF_ERROR(c->WithRank(0, 1));
  auto shape = ConstIntInput(*c, 0);
  if (shape) {
    Status s = ValidateShape(*shape, "shape " + IntListString(*shape));
    if (!s.ok()) return c->Error(s.message());
    c->set_output(0, TensorShape(*shape));
    return Status::OK();
  }
  const PartialShape& s = c->input(0);
  SetUnknownDims(c, 0, s && s->dim_size(0) >= 0 ? static_cast<int>(s->dim_size(0)) : -1);
  return Status::OK();
}

// The inputs, attrs and shape function every random op shares.
OpDefBuilder RandomOp(const char* name) {
  OpDefBuilder b(name);
  b.Input("shape: T")
      .Output("output: dtype")
      .Attr("seed: int = 0")
      .Attr("seed2: int = 0")
      .Attr("dtype: {half, bfloat16, float, double}")
      .Attr("T: {int32, int64}")
      .SetIsStateful()
      .SetShapeFn(RandomShapeFn);
  return b;
}

}  // namespace

static register_op::Registrar kRandomUniformOp = RandomOp("RandomUniform").Doc(
    "Uniform values in [0, 1) of `dtype` and shape `shape` (1-D). Philox 4x32-10 keyed "
               "by (seed, seed2); both 0 means random seeds.");

static register_op::Registrar kRandomStandardNormalOp = RandomOp("RandomStandardNormal").Doc(
    "Normal values with mean 0 and standard deviation 1 (Box-Muller on Philox 4x32-10 "
               "output), of `dtype` and shape `shape`.");

static register_op::Registrar kTruncatedNormalOp = RandomOp("TruncatedNormal").Doc(
    "Normal values with mean 0 and standard deviation 1, redrawn until within 2 "
               "standard deviations of the mean, of `dtype` and shape `shape`.");

}  // namespace fb
