// CPU kernel of Tile (engine/ops/array_tile_ops.cc) for every dtype. The output is written row by
// row (a row: the last dimension): each output row is the matching input row, repeated
// multiples[-1] times; rows of the other dimensions map to input rows by index modulo size.
#include <algorithm>

#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/array_io.h"

namespace fb {
namespace {

// Writes the tiling of `in` (dims `in_dims`) into `out` (dims `out_dims`, rank >= 1, non-empty).
template <typename T>
void TileRows(const T* in, const std::vector<int64_t>& in_dims, T* out,
              const std::vector<int64_t>& out_dims) {
  const int r = static_cast<int>(in_dims.size());
  const int64_t in_row = in_dims[r - 1], out_row = out_dims[r - 1];
  int64_t rows = 1;
  for (int d = 0; d < r - 1; ++d) rows *= out_dims[d];
  std::vector<int64_t> idx(r - 1, 0);  // output row multi-index over dims [0, r-1)
  for (int64_t row = 0; row < rows; ++row) {
    int64_t src = 0;
    for (int d = 0; d < r - 1; ++d) src = src * in_dims[d] + idx[d] % in_dims[d];
    const T* from = in + src * in_row;
    T* to = out + row * out_row;
    for (int64_t k = 0; k < out_row; k += in_row) std::copy(from, from + in_row, to + k);
    for (int d = r - 2; d >= 0 && ++idx[d] == out_dims[d]; --d) idx[d] = 0;
  }
}

// Tile into output 0 of `shape` (the input itself when nothing is repeated).
void RunTile(OpKernelContext* ctx, const TensorShape& shape) {
  const Tensor& input = ctx->input(0);
  auto out = array_io::ForwardOrAllocate(ctx, shape);
  OP_REQUIRES_OK(ctx, out.status());
  if (*out == nullptr || (*out)->NumElements() == 0) return;
  VisitDataType(input.dtype(), [&](auto zero) {
    using T = decltype(zero);
    TileRows<T>(input.data<T>(), input.shape().dim_sizes(), (*out)->data<T>(), shape.dim_sizes());
  });
}

using TileOp = array_io::ArgsOp<TensorShape, array_io::ReadTile, array_io::ReadHostInts, RunTile>;

REGISTER_KERNEL(KernelDefBuilder("Tile").Device(DEVICE_CPU), TileOp);

}  // namespace
}  // namespace fb
