// Minimal Shape and Reshape (op + CPU kernel), which the math gradients need (TensorFlow's
// Reshape(Sum(dy, r), Shape(x)) for broadcasting ops). They belong to the array family: this
// file stands in until that family lands on main, and is then deleted (same names, attrs and
// semantics as TensorFlow's, so nothing else changes).
#include "engine/framework/op_kernel.h"
#include "engine/framework/shape_inference.h"
#include "engine/ops/math_reduction_util.h"

namespace fb {
namespace {

// The output shape of Reshape: `requested` with at most one -1 replaced so that the element
// count matches `in`. InvalidArgument otherwise.
StatusOr<TensorShape> ResolveReshape(const TensorShape& in, const std::vector<int64_t>& requested) {
  int64_t known = 1;
  int unknown = -1;
  for (size_t i = 0; i < requested.size(); ++i) {
    if (requested[i] == -1 && unknown < 0) {
      unknown = static_cast<int>(i);
    } else if (requested[i] < 0) {
      return InvalidArgument("shape may contain one -1 and otherwise sizes >= 0");
    } else {
      known *= requested[i];
    }
  }
  TensorShape out(requested);
  if (unknown >= 0) {
    if (known == 0 || in.num_elements() % known != 0)
      return InvalidArgument("cannot reshape a tensor of shape ", in.DebugString(), " to ",
                             out.DebugString());
    out.set_dim(unknown, in.num_elements() / known);
  }
  if (out.num_elements() != in.num_elements())
    return InvalidArgument("cannot reshape a tensor of ", in.num_elements(),
                           " elements (shape ", in.DebugString(), ") to shape ",
                           out.DebugString());
  return out;
}

class ShapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const TensorShape& s = ctx->input(0).shape();
    Tensor* out;
    OP_REQUIRES_OK(ctx, ctx->allocate_output(0, TensorShape{s.rank()}, &out));
    for (int i = 0; i < s.rank(); ++i) {
      if (out->dtype() == DataType::kInt32) out->data<int32_t>()[i] = s.dim_size(i);
      else out->data<int64_t>()[i] = s.dim_size(i);
    }
  }
  bool IsExpensive() const override { return false; }
};

class ReshapeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    const Tensor& shape = ctx->input(1);
    OP_REQUIRES(ctx, shape.dims() == 1,
                InvalidArgument("shape must be a vector, got shape ", shape.shape().DebugString()));
    auto requested = IndexValues(shape, "shape");
    OP_REQUIRES_OK(ctx, requested.status());
    auto out = ResolveReshape(ctx->input(0).shape(), *requested);
    OP_REQUIRES_OK(ctx, out.status());
    ctx->set_output(0, ctx->input(0).Reshaped(*out));
  }
  bool IsExpensive() const override { return false; }
};

}  // namespace

REGISTER_OP("Shape")
    .Input("input: T")
    .Output("output: out_type")
    .Attr("T: type")
    .Attr("out_type: {int32, int64} = \"int32\"")
    .SetShapeFn([](InferenceContext* c) {
      c->set_output(0, TensorShape{c->input(0) ? c->input(0)->rank() : -1});
      return Status::OK();
    })
    .Doc("The shape of input as a vector.");

REGISTER_OP("Reshape")
    .Input("tensor: T")
    .Input("shape: Tshape")
    .Output("output: T")
    .Attr("T: type")
    .Attr("Tshape: {int32, int64} = \"int32\"")
    .SetShapeFn([](InferenceContext* c) {
      const Tensor* shape = c->input_tensor(1);
      if (!shape) return shape_fns::Unknown(c);
      auto dims = IndexValues(*shape, "shape");
      if (!dims.ok()) return c->Error(dims.status().message());
      c->set_output(0, TensorShape(*dims));  // a -1 stays unknown
      return Status::OK();
    })
    .Doc("tensor with the same elements in a new shape (no copy); one entry of shape may be -1.");

REGISTER_KERNEL(KernelDefBuilder("Shape").Device(DEVICE_CPU), ShapeOp);
REGISTER_KERNEL(KernelDefBuilder("Reshape").Device(DEVICE_CPU), ReshapeOp);

}  // namespace fb
