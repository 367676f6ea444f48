// RandomShuffle of whitepaper Table 1 (TensorFlow's random_ops.cc): a random permutation of a
// tensor's first dimension. Like the other random ops (random_ops.cc) it draws from the node's
// Philox 4x32-10 stream keyed by (seed, seed2), reproducible when either is non-zero, and is
// stateful (each Run shuffles anew; never merged or constant-folded). Kernel:
// kernels/cpu/random_shuffle_kernels.cc. No gradient (as TensorFlow).
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

REGISTER_OP("RandomShuffle")
    .Input("value: T")
    .Output("output: T")
    .Attr("seed: int = 0")
    .Attr("seed2: int = 0")
    .Attr("T: type")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc(
        "`value` with its slices along the first dimension in a random order (Fisher-Yates on "
        "Philox 4x32-10 keyed by (seed, seed2); both 0 means random seeds). A scalar or a "
        "single row is returned as is.");

}  // namespace fb
