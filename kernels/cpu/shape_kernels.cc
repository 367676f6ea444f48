// CPU kernels of the shape ops (engine/ops/array_shape_ops.cc): Shape, Rank, Size, and the views
// Reshape, ExpandDims and Squeeze, which share the input's buffer (no copy) for every dtype.
#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"

namespace fb {

namespace {

// A tensor of `dtype` (int32 or int64) and `shape` holding `values`. InvalidArgument when a
// value does not fit int32.
StatusOr<Tensor> MakeIntTensor(DataType dtype, const std::vector<int64_t>& values,
                               const TensorShape& shape) {
  Tensor t(dtype, shape);
  for (size_t i = 0; i < values.size(); ++i) {
    if (dtype == DataType::kInt64) {
      t.data<int64_t>()[i] = values[i];
    } else {
      if (values[i] > INT32_MAX)
        return InvalidArgument("value ", values[i], " does not fit out_type int32; use int64");
      t.data<int32_t>()[i] = static_cast<int32_t>(values[i]);
    }
  }
  return t;
}

class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorShape& s = ctx->input(0).shape();
    auto t = MakeIntTensor(output_type(0), s.dim_sizes(), TensorShape{s.rank()});
    OP_REQUIRES_OK(ctx, t.status());
    ctx->set_output(0, *t);
  }
  bool IsExpensive() const override { return false; }
};

class RankOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    ctx->set_output(0, Tensor::Scalar<int32_t>(ctx->input(0).dims()));
  }
  bool IsExpensive() const override { return false; }
};

class SizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto t = MakeIntTensor(output_type(0), {ctx->input(0).NumElements()}, TensorShape{});
    OP_REQUIRES_OK(ctx, t.status());
    ctx->set_output(0, *t);
  }
  bool IsExpensive() const override { return false; }
};

// Base of the views: computes the new shape and outputs the input reshaped (shared buffer).
class ViewOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto shape = OutputShape(ctx);
    OP_REQUIRES_OK(ctx, shape.status());
    ctx->set_output(0, ctx->input(0).Reshaped(*shape));
  }
  bool IsExpensive() const override { return false; }

 protected:
  virtual StatusOr<TensorShape> OutputShape(OpKernelContext* ctx) const = 0;
};

class ReshapeOp : public ViewOp {
 public:
  using ViewOp::ViewOp;
  StatusOr<TensorShape> OutputShape(OpKernelContext* ctx) const override {
    const Tensor& shape = ctx->input(1);
    if (shape.dims() != 1)
      return InvalidArgument("shape must be 1-D, got shape ", shape.shape().DebugString());
    return ReshapeShape(ctx->input(0).shape(), IntTensorValues(shape));
  }
};

class ExpandDimsOp : public ViewOp {
 public:
  using ViewOp::ViewOp;
  StatusOr<TensorShape> OutputShape(OpKernelContext* ctx) const override {
    const Tensor& dim = ctx->input(1);
    if (dim.NumElements() != 1)
      return InvalidArgument("dim must hold one value, got shape ", dim.shape().DebugString());
    return ExpandDimsShape(ctx->input(0).shape(), IntTensorValues(dim)[0]);
  }
};

class SqueezeOp : public ViewOp {
 public:
  explicit SqueezeOp(OpKernelConstruction* c) : ViewOp(c) {
    c->SetStatus(c->GetAttr("squeeze_dims", &dims_));
  }
  StatusOr<TensorShape> OutputShape(OpKernelContext* ctx) const override {
    return SqueezeShape(ctx->input(0).shape(), dims_);
  }

 private:
  std::vector<int64_t> dims_;
};

REGISTER_KERNEL(KernelDefBuilder("Shape").Device(DEVICE_CPU), ShapeOp);
REGISTER_KERNEL(KernelDefBuilder("Rank").Device(DEVICE_CPU), RankOp);
REGISTER_KERNEL(KernelDefBuilder("Size").Device(DEVICE_CPU), SizeOp);
REGISTER_KERNEL(KernelDefBuilder("Reshape").Device(DEVICE_CPU), ReshapeOp);
REGISTER_KERNEL(KernelDefBuilder("ExpandDims").Device(DEVICE_CPU), ExpandDimsOp);
REGISTER_KERNEL(KernelDefBuilder("Squeeze").Device(DEVICE_CPU), SqueezeOp);

}  // namespace

}  // namespace fb
