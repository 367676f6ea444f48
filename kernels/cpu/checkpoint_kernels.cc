// Save and Restore kernels (whitepaper 3.3): thin wrappers over engine/checkpoint/checkpoint_file.
#include "engine/checkpoint/checkpoint_file.h"
#include "engine/framework/op_kernel.h"

namespace fb {

namespace {
Status ScalarString(const Tensor& t, const char* what, std::string* out) {
  if (t.dtype() != DataType::kString || t.dims() != 0)
    return InvalidArgument(what, " must be a string scalar, got ", t.TypeAndShapeString());
  *out = t.scalar<std::string>();
  return Status::OK();
}
}  // namespace

class SaveOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    std::string filename;
    OP_REQUIRES_OK(ctx, ScalarString(ctx->input(0), "filename", &filename));
    const Tensor& names = ctx->input(1);
    const int n = ctx->num_inputs() - 2;
    OP_REQUIRES(ctx, names.dtype() == DataType::kString && names.dims() == 1 &&
                         names.NumElements() == n,
                InvalidArgument("tensor_names must be a 1-D string tensor of ", n,
                                " names (one per data tensor), got ", names.TypeAndShapeString()));
    std::vector<std::string> tensor_names(names.data<std::string>(),
                                          names.data<std::string>() + n);
    std::vector<Tensor> tensors;
    for (int i = 0; i < n; ++i) tensors.push_back(ctx->input(2 + i));
    OP_REQUIRES_OK(ctx, WriteCheckpoint(filename, tensor_names, tensors));
  }
};

class RestoreOp : public OpKernel {
 public:
  explicit RestoreOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("dt", &dtype_));
    c->SetStatus(c->GetAttr("shape", &shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::string filename, name;
    OP_REQUIRES_OK(ctx, ScalarString(ctx->input(0), "file_pattern", &filename));
    OP_REQUIRES_OK(ctx, ScalarString(ctx->input(1), "tensor_name", &name));
    auto t = ReadCheckpointTensor(filename, name, dtype_, shape_, ctx->allocator());
    OP_REQUIRES_OK(ctx, t.status());
    ctx->set_output(0, *t);
  }

 private:
  DataType dtype_ = DataType::kInvalid;
  TensorShape shape_;
};

REGISTER_KERNEL(KernelDefBuilder("Save").Device(DEVICE_CPU), SaveOp);
REGISTER_KERNEL(KernelDefBuilder("Restore").Device(DEVICE_CPU), RestoreOp);

}  // namespace fb
