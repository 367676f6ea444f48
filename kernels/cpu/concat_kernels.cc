// CPU kernels of ConcatV2, Concat, Pack, Unpack and ConcatOffset (engine/ops/array_slice_ops.cc)
// for every dtype. Joining along an axis is a column-wise copy of [outer, width] views
// (kernels/cpu/array_copy.h); unpacking along dimension 0 shares the input's buffer.
#include "engine/framework/op_kernel.h"
#include "engine/ops/array_shape_util.h"
#include "kernels/cpu/array_copy.h"

namespace fb {

namespace {

// Allocates output 0 of `shape` and copies `values` into it side by side along `axis`
// (canonical in the output): each value is viewed as [outer, width] where outer is the product
// of the output dimensions before `axis`.
void JoinAlongAxis(OpKernelContext* ctx, const std::vector<Tensor>& values, int axis,
                   const TensorShape& shape) {
  Tensor* out;
  OP_REQUIRES_OK(ctx, ctx->allocate_output(0, shape, &out));
  const int64_t outer = DimProduct(shape.dim_sizes(), 0, axis);
  if (out->NumElements() == 0) return;
  VisitDataType(out->dtype(), [&](auto zero) {
    using T = decltype(zero);
    std::vector<T*> parts;
    std::vector<int64_t> widths;
    for (const Tensor& v : values) {
      parts.push_back(v.data<T>());
      widths.push_back(v.NumElements() / outer);
    }
    JoinColumns<T>(out->data<T>(), outer, parts, widths, /*join=*/true);
  });
}

// ConcatV2 (axis last) and Concat (axis first).
class ConcatOp : public OpKernel {
 public:
  explicit ConcatOp(OpKernelConstruction* c) : OpKernel(c), axis_first_(c->def().op == "Concat") {}
  void Compute(OpKernelContext* ctx) override {
    const int n = num_inputs() - 1;
    const int axis_input = axis_first_ ? 0 : n;
    const Tensor& axis_t = ctx->input(axis_input);
    OP_REQUIRES(ctx, axis_t.NumElements() == 1,
                InvalidArgument("axis must be a scalar, got shape ", axis_t.shape().DebugString()));
    std::vector<Tensor> values;
    std::vector<TensorShape> shapes;
    for (int i = 0; i < n; ++i) {
      values.push_back(ctx->input(axis_first_ ? i + 1 : i));
      shapes.push_back(values.back().shape());
    }
    const int64_t axis = IntTensorValues(axis_t)[0];
    auto shape = ConcatShape(shapes, axis);
    OP_REQUIRES_OK(ctx, shape.status());
    JoinAlongAxis(ctx, values, static_cast<int>(axis < 0 ? axis + shape->rank() : axis), *shape);
  }

 private:
  bool axis_first_;
};

class PackOp : public OpKernel {
 public:
  explicit PackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::vector<Tensor> values;
    std::vector<TensorShape> shapes;
    for (int i = 0; i < num_inputs(); ++i) {
      values.push_back(ctx->input(i));
      shapes.push_back(values.back().shape());
    }
    auto shape = PackShape(shapes, axis_);
    OP_REQUIRES_OK(ctx, shape.status());
    JoinAlongAxis(ctx, values, static_cast<int>(axis_ < 0 ? axis_ + shape->rank() : axis_), *shape);
  }

 private:
  int64_t axis_ = 0;
};

class UnpackOp : public OpKernel {
 public:
  explicit UnpackOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("axis", &axis_));
  }
  void Compute(OpKernelContext* ctx) override {
    const Tensor& value = ctx->input(0);
    const int n = num_outputs();
    auto piece = UnpackShape(value.shape(), n, axis_);
    OP_REQUIRES_OK(ctx, piece.status());
    const int axis = static_cast<int>(axis_ < 0 ? axis_ + value.dims() : axis_);
    if (axis == 0) {
      for (int i = 0; i < n; ++i) ctx->set_output(i, value.Slice(i, i + 1).Reshaped(*piece));
      return;
    }
    std::vector<Tensor*> outs(n);
    for (int i = 0; i < n; ++i) OP_REQUIRES_OK(ctx, ctx->allocate_output(i, *piece, &outs[i]));
    const int64_t outer = DimProduct(value.shape().dim_sizes(), 0, axis);
    const int64_t inner = DimProduct(value.shape().dim_sizes(), axis + 1, value.dims());
    if (value.NumElements() == 0) return;
    VisitDataType(value.dtype(), [&](auto zero) {
      using T = decltype(zero);
      std::vector<T*> parts;
      for (Tensor* t : outs) parts.push_back(t->data<T>());
      JoinColumns<T>(value.data<T>(), outer, parts, std::vector<int64_t>(n, inner), /*join=*/false);
    });
  }

 private:
  int64_t axis_ = 0;
};

template <typename T>
class ConcatOffsetOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const int n = num_inputs() - 1;
    const Tensor& first = ctx->input(1);
    OP_REQUIRES(ctx, first.dims() == 1,
                InvalidArgument("shape 0 must be 1-D, got shape ", first.shape().DebugString()));
    const int rank = static_cast<int>(first.NumElements());
    auto axis = CanonicalAxis(ctx->input(0).data<int32_t>()[0], rank, "concat_dim");
    OP_REQUIRES_OK(ctx, axis.status());
    std::vector<int64_t> ref = IntTensorValues(first);
    T offset = 0;
    for (int i = 0; i < n; ++i) {
      std::vector<int64_t> dims = IntTensorValues(ctx->input(i + 1));
      bool ok = static_cast<int>(dims.size()) == rank;
      for (int d = 0; ok && d < rank; ++d) ok = d == *axis || dims[d] == ref[d];
      OP_REQUIRES(ctx, ok,
                  InvalidArgument("shape ", i, " = ", IntListString(dims), " does not match shape 0 = ",
                                  IntListString(ref), " outside concat_dim ", *axis));
      Tensor* out;
      OP_REQUIRES_OK(ctx, ctx->allocate_output(i, TensorShape{rank}, &out));
      std::fill(out->data<T>(), out->data<T>() + rank, T{0});
      out->data<T>()[*axis] = offset;
      offset += static_cast<T>(dims[*axis]);
    }
  }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(KernelDefBuilder("ConcatV2").Device(DEVICE_CPU), ConcatOp);
REGISTER_KERNEL(KernelDefBuilder("Concat").Device(DEVICE_CPU), ConcatOp);
REGISTER_KERNEL(KernelDefBuilder("Pack").Device(DEVICE_CPU), PackOp);
REGISTER_KERNEL(KernelDefBuilder("Unpack").Device(DEVICE_CPU), UnpackOp);
REGISTER_KERNEL(KernelDefBuilder("ConcatOffset").Device(DEVICE_CPU).TypeConstraint<int32_t>("shape_type"),
                ConcatOffsetOp<int32_t>);
REGISTER_KERNEL(KernelDefBuilder("ConcatOffset").Device(DEVICE_CPU).TypeConstraint<int64_t>("shape_type"),
                ConcatOffsetOp<int64_t>);

}  // namespace

}  // namespace fb
