// CPU kernels for Softmax, LogSoftmax, SoftmaxCrossEntropyWithLogits and
// SparseSoftmaxCrossEntropyWithLogits (engine/ops/nn_ops_softmax.cc). Each row is shifted by its
// maximum before exponentiating (softmax(x) = softmax(x - max x)), so no exp overflows and the
// log-sum-exp stays finite; rows are sharded over the intra-op pool.
#include <cmath>

#include "kernels/cpu/nn_kernel_util.h"

namespace fb {
namespace {

template <typename T>
using Row = Eigen::Map<Eigen::Array<T, 1, Eigen::Dynamic>>;

// Writes x - max(x) into `shifted` and returns log(sum(exp(x - max(x)))).
template <typename T>
T ShiftAndLogSumExp(const Row<T>& x, Row<T>* shifted) {
  *shifted = x - x.maxCoeff();
  return std::log(shifted->exp().sum());
}

template <typename T, bool kLog>
class SoftmaxOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& logits = ctx->input(0);
    OP_REQUIRES(ctx, logits.dims() >= 1,
                InvalidArgument("logits must have rank >= 1, got a scalar"));
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, logits.shape(), &out));
    int64_t cols = logits.dim_size(logits.dims() - 1);
    if (cols == 0) return;
    int64_t rows = logits.NumElements() / cols;
    nn::Shard(ctx, rows, cols * 5, [&](int64_t lo, int64_t hi) {
      for (int64_t r = lo; r < hi; ++r) {
        Row<T> x(logits.data<T>() + r * cols, cols), y(out->data<T>() + r * cols, cols);
        T lse = ShiftAndLogSumExp(x, &y);
        if (kLog) y -= lse;
        else y = (y - lse).exp();
      }
    });
  }
};

// Checks features [batch, classes] and labels of rank `labels_rank` with the same batch.
Status CheckLossShapes(const Tensor& features, const Tensor& labels, int labels_rank) {
  if (features.dims() != 2)
    return InvalidArgument("features must be 2-D [batch, classes], got shape ",
                           features.shape().DebugString());
  bool ok = labels.dims() == labels_rank && labels.dim_size(0) == features.dim_size(0) &&
            (labels_rank == 1 || labels.dim_size(1) == features.dim_size(1));
  if (!ok)
    return InvalidArgument("labels must have shape ",
                           labels_rank == 1 ? "[batch] = [" + std::to_string(features.dim_size(0)) + "]"
                                            : features.shape().DebugString(),
                           " to match features ", features.shape().DebugString(),
                           ", got shape ", labels.shape().DebugString());
  return Status::OK();
}

// Runs fn(row, features_row, backprop_row, &loss_row) after allocating loss [batch] and
// backprop [batch, classes]; backprop_row holds x - max(x) and fn receives log-sum-exp.
template <typename T, typename Fn>
void ComputeLoss(OpKernelContext* ctx, const Tensor& features, int64_t cost_ns, Fn fn) {
  int64_t batch = features.dim_size(0), classes = features.dim_size(1);
  Tensor *loss, *backprop;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{batch}, &loss));
  OP_REQUIRES_OK(ctx, ctx->allocate_output(1, features.shape(), &backprop));
  if (classes == 0) {
    loss->flat<T>().setZero();
    return;
  }
  nn::Shard(ctx, batch, classes * cost_ns, [&](int64_t lo, int64_t hi) {
    for (int64_t r = lo; r < hi; ++r) {
      Row<T> x(features.data<T>() + r * classes, classes);
      Row<T> shifted(backprop->data<T>() + r * classes, classes);
      T lse = ShiftAndLogSumExp(x, &shifted);
      loss->data<T>()[r] = fn(r, lse, &shifted);
    }
  });
}

template <typename T>
class SoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckLossShapes(features, labels, 2));
    int64_t classes = features.dim_size(1);
    // loss = sum_j labels_j * (lse - shifted_j); backprop = exp(shifted - lse) - labels.
    ComputeLoss<T>(ctx, features, 8, [&](int64_t r, T lse, Row<T>* bp) {
      Row<T> y(labels.data<T>() + r * classes, classes);
      T loss = (y * (lse - *bp)).sum();
      *bp = (*bp - lse).exp() - y;
      return loss;
    });
  }
};

template <typename T, typename Index>
class SparseSoftmaxXentOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& features = ctx->input(0);
    const Tensor& labels = ctx->input(1);
    OP_REQUIRES_OK(ctx, CheckLossShapes(features, labels, 1));
    int64_t classes = features.dim_size(1);
    const Index* label = labels.data<Index>();
    for (int64_t i = 0; i < labels.NumElements(); ++i)
      OP_REQUIRES(ctx, label[i] >= 0 && label[i] < classes,
                  InvalidArgument("received a label value of ", label[i], " at index ", i,
                                  ", outside the valid range of [0, ", classes, ")"));
    // loss = lse - shifted[label]; backprop = exp(shifted - lse) - onehot(label).
    ComputeLoss<T>(ctx, features, 6, [&](int64_t r, T lse, Row<T>* bp) {
      T loss = lse - (*bp)(label[r]);
      *bp = (*bp - lse).exp();
      (*bp)(label[r]) -= T(1);
      return loss;
    });
  }
};

template <typename T> using SoftmaxKernel = SoftmaxOp<T, false>;
template <typename T> using LogSoftmaxKernel = SoftmaxOp<T, true>;

#define FB_REGISTER_SPARSE_XENT(T, Index)                                                   \
  REGISTER_KERNEL(KernelDefBuilder("SparseSoftmaxCrossEntropyWithLogits")                   \
                      .Device(DEVICE_CPU)                                                   \
                      .TypeConstraint<T>("T")                                               \
                      .TypeConstraint<Index>("Tlabels"),                                    \
                  SparseSoftmaxXentOp<T, Index>)

}  // namespace

FB_REGISTER_FLOAT_KERNELS("Softmax", SoftmaxKernel);
FB_REGISTER_FLOAT_KERNELS("LogSoftmax", LogSoftmaxKernel);
FB_REGISTER_FLOAT_KERNELS("SoftmaxCrossEntropyWithLogits", SoftmaxXentOp);
FB_REGISTER_SPARSE_XENT(float, int32_t);
FB_REGISTER_SPARSE_XENT(float, int64_t);
FB_REGISTER_SPARSE_XENT(double, int32_t);
FB_REGISTER_SPARSE_XENT(double, int64_t);

}  // namespace fb
