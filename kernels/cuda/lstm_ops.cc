// GPU LSTMBlockCell and LSTMBlockCellGrad (engine/ops/rnn_ops_lstm.cc). The forward places x and
// h_prev side by side in a temporary xh [B, I + H] (two strided device copies), computes
// icfo = xh w with cuBLAS (cublas_gemm.h: TF32 as the device's MatMul), then the gates in one
// element-wise kernel (lstm_kernels.cu); the backward is two element-wise kernels. Four launches
// per forward step where the same cell as basic ops takes about fifteen. Input checks and
// messages are the CPU kernel's (kernels/cpu/lstm_io.h).
#include "kernels/cpu/lstm_io.h"
#include "kernels/cuda/cublas_gemm.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/lstm_launch.h"

namespace fb::gpu {
namespace {

using lstm::Dims;

// Copies the [rows, width] matrix src into columns [column, column + width) of dst [rows, pitch].
template <typename T>
Status CopyColumns(const T* src, int64_t rows, int64_t width, T* dst, int64_t pitch, int64_t column,
                   cudaStream_t s) {
  if (rows == 0 || width == 0) return Status::OK();
  return CudaStatus(cudaMemcpy2DAsync(dst + column, pitch * sizeof(T), src, width * sizeof(T),
                                      width * sizeof(T), rows, cudaMemcpyDeviceToDevice, s),
                    "cudaMemcpy2DAsync of LSTMBlockCell's xh");
}

template <typename T>
class GpuLstmBlockCellOp : public lstm::OpBase<false> {
 public:
  using OpBase::OpBase;

 protected:
  void Run(OpKernelContext* ctx, const Dims& d, Tensor* out[7]) override {
    GpuDevice* gpu = GpuOf(ctx);
    cudaStream_t stream = gpu->compute_stream();
    const int64_t B = d.batch, C = d.cells, XH = d.input + d.hidden;
    const DataType dt = DataTypeToEnum<T>::value;
    Tensor xh, icfo;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(dt, TensorShape({B, XH}), &xh));
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(dt, TensorShape({B, 4 * C}), &icfo));
    OP_REQUIRES_OK(ctx,
                   CopyColumns(ctx->input(0).data<T>(), B, d.input, xh.data<T>(), XH, 0, stream));
    OP_REQUIRES_OK(
        ctx, CopyColumns(ctx->input(2).data<T>(), B, d.hidden, xh.data<T>(), XH, d.input, stream));
    OP_REQUIRES_OK(ctx, Gemm<T>(gpu, GemmDims{B, XH, 4 * C}, false, false, xh.data<T>(),
                                ctx->input(3).data<T>(), icfo.data<T>()));
    LstmForwardArgs<T> a;
    a.icfo = icfo.data<T>();
    a.bias = ctx->input(7).data<T>();
    a.cs_prev = ctx->input(1).data<T>();
    a.wci = ctx->input(4).data<T>();
    a.wcf = ctx->input(5).data<T>();
    a.wco = ctx->input(6).data<T>();
    T** outs[7] = {&a.i, &a.cs, &a.f, &a.o, &a.ci, &a.co, &a.h};
    for (int k = 0; k < 7; ++k) *outs[k] = out[k]->data<T>();
    a.batch = B;
    a.cells = C;
    a.forget_bias = attrs_.forget_bias;
    a.cell_clip = attrs_.cell_clip;
    a.use_peephole = attrs_.use_peephole;
    LaunchLstmForward(a, stream);
  }
};

template <typename T>
class GpuLstmBlockCellGradOp : public lstm::OpBase<true> {
 public:
  using OpBase::OpBase;

 protected:
  void Run(OpKernelContext* ctx, const Dims& d, Tensor* out[7]) override {
    LstmBackwardArgs<T> a;
    const T** ins[9] = {&a.cs_prev, &a.i, &a.cs, &a.f, &a.o, &a.ci, &a.co, &a.cs_grad, &a.h_grad};
    const int index[9] = {1, 8, 9, 10, 11, 12, 13, 14, 15};
    for (int k = 0; k < 9; ++k) *ins[k] = ctx->input(index[k]).data<T>();
    a.wci = ctx->input(4).data<T>();
    a.wcf = ctx->input(5).data<T>();
    a.wco = ctx->input(6).data<T>();
    a.cs_prev_grad = out[0]->data<T>();
    a.dicfo = out[1]->data<T>();
    a.wci_grad = out[2]->data<T>();
    a.wcf_grad = out[3]->data<T>();
    a.wco_grad = out[4]->data<T>();
    a.batch = d.batch;
    a.cells = d.cells;
    a.use_peephole = attrs_.use_peephole;
    LaunchLstmBackward(a, GpuOf(ctx)->compute_stream());
  }
};

FB_REGISTER_GPU_FD("LSTMBlockCell", GpuLstmBlockCellOp);
FB_REGISTER_GPU_FD("LSTMBlockCellGrad", GpuLstmBlockCellGradOp);

}  // namespace
}  // namespace fb::gpu
