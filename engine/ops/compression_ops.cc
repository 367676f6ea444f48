// Lossy transfer compression (whitepaper 5.5, "Lossy Compression"): the pair of conversion ops
// the "compression" graph pass (engine/passes/compression.h) puts around float32 tensors that
// cross devices. _CompressFloat32 keeps the high 16 bits of each IEEE float32 (sign, 8 exponent
// bits, 7 mantissa bits: the bfloat16 format); _DecompressFloat32 zero-fills the low 16 bits.
// Kernels: kernels/cpu/compression_kernels.cc.
#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"

namespace fb {

REGISTER_OP("_CompressFloat32")
    .Input("x: float")
    .Output("y: bfloat16")
    .Attr("truncate: bool = false")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("The high 16 bits of each float32 of x, as bfloat16. truncate=true drops the low 16 "
         "bits as in whitepaper 5.5 (relative error < 2^-7); false rounds to nearest even "
         "(relative error <= 2^-8 for normal numbers). NaN stays NaN.");

REGISTER_OP("_DecompressFloat32")
    .Input("x: bfloat16")
    .Output("y: float")
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("Each 16-bit value of x as the high half of a float32 whose low 16 bits are zero.");

}  // namespace fb
