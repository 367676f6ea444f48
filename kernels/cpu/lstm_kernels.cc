// CPU LSTMBlockCell and LSTMBlockCellGrad (engine/ops/rnn_ops_lstm.cc), after TensorFlow's
// contrib/rnn/kernels/lstm_ops.h (LSTMBlockCellFprop / Bprop). The forward copies x and h_prev
// side by side into xh [B, I + H], computes icfo = xh w with one GEMM (ShardedGemm over the
// intra-op pool), then the gates row by row with Eigen's vectorized logistic and tanh. The
// backward is element-wise; the peephole gradients are column sums over the batch.
#include <algorithm>

#include "kernels/cpu/lstm_io.h"
#include "kernels/cpu/matmul.h"
#include "kernels/cpu/nn_kernel_util.h"
#include "kernels/cpu/register_cpu.h"

namespace fb {
namespace {

using lstm::Dims;
template <typename T>
using Vec = Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>;
template <typename T>
using ConstVec = Eigen::Map<const Eigen::Array<T, Eigen::Dynamic, 1>>;

// Row r, columns [block * C, (block + 1) * C) of a [rows, width] tensor.
template <typename T>
ConstVec<T> In(const Tensor& t, int64_t r, int64_t width, int64_t C, int block = 0) {
  return ConstVec<T>(t.data<T>() + r * width + block * C, C);
}
template <typename T>
Vec<T> Out(Tensor* t, int64_t r, int64_t width, int64_t C, int block = 0) {
  return Vec<T>(t->data<T>() + r * width + block * C, C);
}

template <typename T>
class LstmBlockCellOp : public lstm::OpBase<false> {
 public:
  using OpBase::OpBase;

 protected:
  void Run(OpKernelContext* ctx, const Dims& d, Tensor* out[7]) override {
    const Tensor &x = ctx->input(0), &h_prev = ctx->input(2);
    const int64_t B = d.batch, C = d.cells, XH = d.input + d.hidden;
    // Temporaries from the device allocator (uninitialised, counted in the step's peak bytes).
    Tensor xh, icfo;
    OP_REQUIRES_OK(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({B, XH}), &xh));
    OP_REQUIRES_OK(ctx,
                   ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape({B, 4 * C}), &icfo));
    for (int64_t r = 0; r < B; ++r) {
      std::copy_n(x.data<T>() + r * d.input, d.input, xh.data<T>() + r * XH);
      std::copy_n(h_prev.data<T>() + r * d.hidden, d.hidden, xh.data<T>() + r * XH + d.input);
    }
    ShardedGemm<T>(ctx->intra_op_pool(), GemmDims{B, XH, 4 * C}, false, false, xh.data<T>(),
                   ctx->input(3).data<T>(), icfo.data<T>());
    const T* bias = ctx->input(7).data<T>();
    const T* z = icfo.data<T>();
    const lstm::Attrs a = attrs_;
    nn::Shard(ctx, B, C * 60, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) Gates(ctx, d, a, z + r * 4 * C, bias, r, out);
    });
  }

 private:
  // One row: the gates from its pre-activations z (icfo, bias not yet added).
  static void Gates(OpKernelContext* ctx, const Dims& d, const lstm::Attrs& a, const T* z,
                    const T* bias, int64_t r, Tensor* out[7]) {
    const int64_t C = d.cells;
    auto pre = [&](int block) {
      return ConstVec<T>(z + block * C, C) + ConstVec<T>(bias + block * C, C);
    };
    const ConstVec<T> cs_prev = In<T>(ctx->input(1), r, C, C);
    Vec<T> i = Out<T>(out[0], r, C, C), cs = Out<T>(out[1], r, C, C), f = Out<T>(out[2], r, C, C);
    Vec<T> o = Out<T>(out[3], r, C, C), ci = Out<T>(out[4], r, C, C), co = Out<T>(out[5], r, C, C);
    Vec<T> h = Out<T>(out[6], r, C, C);
    const T forget_bias = static_cast<T>(a.forget_bias);
    if (a.use_peephole) {
      i = (pre(0) + cs_prev * ConstVec<T>(ctx->input(4).data<T>(), C)).logistic();
      f = (pre(2) + forget_bias + cs_prev * ConstVec<T>(ctx->input(5).data<T>(), C)).logistic();
    } else {
      i = pre(0).logistic();
      f = (pre(2) + forget_bias).logistic();
    }
    ci = pre(1).tanh();
    cs = ci * i + cs_prev * f;
    if (a.cell_clip > 0) {
      const T clip = static_cast<T>(a.cell_clip);
      cs = cs.min(clip).max(-clip);
    }
    if (a.use_peephole)
      o = (pre(3) + cs * ConstVec<T>(ctx->input(6).data<T>(), C)).logistic();
    else
      o = pre(3).logistic();
    co = cs.tanh();
    h = co * o;
  }
};

template <typename T>
class LstmBlockCellGradOp : public lstm::OpBase<true> {
 public:
  using OpBase::OpBase;

 protected:
  void Run(OpKernelContext* ctx, const Dims& d, Tensor* out[7]) override {
    const int64_t B = d.batch, C = d.cells;
    for (int k = 2; k < 5; ++k) out[k]->flat<T>().setZero();
    const bool peephole = attrs_.use_peephole;
    // Rows are independent; the peephole sums are added up on one thread afterwards.
    nn::Shard(ctx, B, C * 40, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) Row(ctx, C, r, peephole, out);
    });
    if (!peephole) return;
    Vec<T> wci_grad(out[2]->data<T>(), C), wcf_grad(out[3]->data<T>(), C),
        wco_grad(out[4]->data<T>(), C);
    for (int64_t r = 0; r < B; ++r) {
      const ConstVec<T> cs_prev = In<T>(ctx->input(1), r, C, C), cs = In<T>(ctx->input(9), r, C, C);
      wci_grad += In<T>(*out[1], r, 4 * C, C, 0) * cs_prev;
      wcf_grad += In<T>(*out[1], r, 4 * C, C, 2) * cs_prev;
      wco_grad += In<T>(*out[1], r, 4 * C, C, 3) * cs;
    }
  }

 private:
  static void Row(OpKernelContext* ctx, int64_t C, int64_t r, bool peephole, Tensor* out[7]) {
    auto in = [&](int k) { return In<T>(ctx->input(k), r, C, C); };
    const ConstVec<T> cs_prev = in(1), i = in(8), f = in(10), o = in(11), ci = in(12);
    const ConstVec<T> co = in(13), cs_grad = in(14), h_grad = in(15);
    Vec<T> di = Out<T>(out[1], r, 4 * C, C, 0), dci = Out<T>(out[1], r, 4 * C, C, 1);
    Vec<T> df = Out<T>(out[1], r, 4 * C, C, 2), d_o = Out<T>(out[1], r, 4 * C, C, 3);
    Vec<T> cs_prev_grad = Out<T>(out[0], r, C, C);
    const T one(1);
    d_o = o * (one - o) * h_grad * co;
    // dcs is kept in cs_prev_grad until the end.
    cs_prev_grad = (one - co * co) * h_grad * o + cs_grad;
    if (peephole) cs_prev_grad += d_o * ConstVec<T>(ctx->input(6).data<T>(), C);
    dci = (one - ci * ci) * cs_prev_grad * i;
    df = f * (one - f) * cs_prev_grad * cs_prev;
    di = i * (one - i) * cs_prev_grad * ci;
    cs_prev_grad *= f;
    if (peephole)
      cs_prev_grad += di * ConstVec<T>(ctx->input(4).data<T>(), C) +
                      df * ConstVec<T>(ctx->input(5).data<T>(), C);
  }
};

FB_REGISTER_CPU_T("LSTMBlockCell", float, LstmBlockCellOp<float>);
FB_REGISTER_CPU_T("LSTMBlockCell", double, LstmBlockCellOp<double>);
FB_REGISTER_CPU_T("LSTMBlockCellGrad", float, LstmBlockCellGradOp<float>);
FB_REGISTER_CPU_T("LSTMBlockCellGrad", double, LstmBlockCellGradOp<double>);

}  // namespace
}  // namespace fb
