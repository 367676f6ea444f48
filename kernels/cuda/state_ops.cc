// GPU kernels of the state ops (engine/ops/state_ops.cc: Variable, Assign, AssignAdd,
// AssignSub; whitepaper 4.7) and of Const and StopGradient. As on the CPU
// (kernels/cpu/variable_kernels.cc): the Var lives in the device's ResourceMgr and is passed on
// as a reference; Assign copies the value into a new buffer from the GPU allocator (or takes the
// value's buffer when nothing else holds it), AssignAdd/AssignSub update in place under the
// Var's mutex after PrepareGpuVarForWrite. Every copy and update is queued on the compute stream;
// nothing waits for the GPU.
//
// Const keeps its value in GPU memory, copied once when the kernel is built, except int32 Consts:
// those are shapes, axes and sizes, registered with HostMemory("output") (TensorFlow's
// HostConstantOp) and kept in host memory so that the kernels reading them on the host
// (HostInput) need no device-to-host copy. GPU kernels that use an int32 tensor as device data
// copy a host-memory input to the GPU first (InputOnGpu), so they work whether or not the
// executor places HostMemory outputs in host memory.
#include <mutex>

#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/state_launch.h"
#include "kernels/cuda/state_util.h"

namespace fb::gpu {
namespace {

class GpuVariableOp : public OpKernel {
 public:
  explicit GpuVariableOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &shared_name_));
    if (shared_name_.empty()) shared_name_ = c->def().name;
    c->SetStatus(c->GetAttr("shape", &shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::lock_guard<std::mutex> l(mu_);
    if (!var_) {
      auto var = ctx->resource_manager()->LookupOrCreate<Var>(container_, shared_name_, [this] {
        auto v = std::make_shared<Var>();
        v->set_declared_shape(shape_);
        return v;
      });
      OP_REQUIRES_OK(ctx, var.status());
      var_ = *var;
    }
    ctx->set_output_ref(0, var_.get());
  }
  bool IsExpensive() const override { return false; }

 private:
  std::string container_, shared_name_;
  TensorShape shape_ = UnknownRankShape();
  std::mutex mu_;
  std::shared_ptr<Var> var_;
};

// `actual` fits `declared` (-1 dims and unknown rank match anything), as on the CPU.
bool ShapeCompatible(const TensorShape& declared, const TensorShape& actual) {
  if (IsUnknownRank(declared)) return true;
  if (declared.rank() != actual.rank()) return false;
  for (int i = 0; i < declared.rank(); ++i)
    if (declared.dim_size(i) >= 0 && declared.dim_size(i) != actual.dim_size(i)) return false;
  return true;
}

class GpuAssignOp : public OpKernel {
 public:
  explicit GpuAssignOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("validate_shape", &validate_shape_));
  }
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    OP_REQUIRES(ctx, var != nullptr, Internal("Assign input 0 is not a reference"));
    const Tensor& value = ctx->input(1);
    {
      std::lock_guard<std::mutex> l(*var->mu());
      const TensorShape& want =
          var->is_initialized() ? var->tensor()->shape() : var->declared_shape();
      OP_REQUIRES(ctx, !validate_shape_ || ShapeCompatible(want, value.shape()),
                  InvalidArgument("cannot assign a value of shape ", value.shape().DebugString(),
                                  " to a variable of shape ", want.DebugString()));
      // As on the CPU: take the buffer of a value only this kernel holds (an initializer's
      // output), else copy so that later in-place updates never alias the value.
      if (ctx->input_ref(1) == nullptr && value.BufferRefCount() == 1 &&
          value.NumElements() > 0 && IsGpuMemory(value)) {
        *var->tensor() = value;
      } else {
        auto copy = CopyToNewGpuTensor(ctx, value);
        OP_REQUIRES_OK(ctx, copy.status());
        *var->tensor() = std::move(*copy);
      }
    }
    ctx->set_output_ref(0, var);
  }

 private:
  bool validate_shape_ = true;
};

template <typename T, bool kAdd>
class GpuAssignUpdateOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    Var* var = ctx->input_ref(0);
    OP_REQUIRES(ctx, var != nullptr, Internal("input 0 is not a reference"));
    auto value = InputOnGpu(ctx, 1);
    OP_REQUIRES_OK(ctx, value.status());
    {
      std::lock_guard<std::mutex> l(*var->mu());
      OP_REQUIRES(ctx, var->is_initialized(),
                  FailedPrecondition("attempting to update uninitialized variable"));
      OP_REQUIRES(ctx, var->tensor()->shape() == value->shape(),
                  InvalidArgument("variable has shape ", var->tensor()->shape().DebugString(),
                                  ", update has shape ", value->shape().DebugString()));
      OP_REQUIRES_OK(ctx, PrepareGpuVarForWrite(ctx, var));
      LaunchAssignUpdate<T>(var->tensor()->template data<T>(), value->template data<T>(), kAdd,
                            value->NumElements(), GpuOf(ctx)->compute_stream());
    }
    ctx->set_output_ref(0, var);
  }
};

// kHost: the value stays in host memory (int32 Consts, registered HostMemory("output")).
template <bool kHost>
class GpuConstOp : public OpKernel {
 public:
  explicit GpuConstOp(OpKernelConstruction* c) : OpKernel(c) {
    Tensor value;
    DataType dtype;
    c->SetStatus(c->GetAttr("value", &value));
    c->SetStatus(c->GetAttr("dtype", &dtype));
    if (!c->status().ok()) return;
    if (value.dtype() != dtype) {
      c->SetStatus(InvalidArgument("value is ", DataTypeString(value.dtype()), " but dtype is ",
                                   DataTypeString(dtype)));
      return;
    }
    if (kHost) {
      value_ = value;
      return;
    }
    auto on_gpu = c->device()->CopyFromHost(value);
    if (on_gpu.ok()) value_ = *on_gpu;
    else c->SetStatus(on_gpu.status());
  }
  void Compute(OpKernelContext* ctx) override { ctx->set_output(0, value_); }
  bool IsExpensive() const override { return false; }

 private:
  Tensor value_;
};

// StopGradient forwards its input (no copy); only autodiff treats it differently.
class GpuForwardOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override { ctx->forward_input(0, 0); }
  bool IsExpensive() const override { return false; }
};

REGISTER_KERNEL(KernelDefBuilder("Variable").Device(DEVICE_GPU), GpuVariableOp);
REGISTER_KERNEL(KernelDefBuilder("Assign").Device(DEVICE_GPU), GpuAssignOp);
REGISTER_KERNEL(KernelDefBuilder("StopGradient").Device(DEVICE_GPU), GpuForwardOp);

#define FB_REGISTER_ASSIGN_UPDATE(T)                          \
  FB_REGISTER_GPU_T("AssignAdd", T, GpuAssignUpdateOp<T, true>); \
  FB_REGISTER_GPU_T("AssignSub", T, GpuAssignUpdateOp<T, false>)
FB_REGISTER_ASSIGN_UPDATE(float);
FB_REGISTER_ASSIGN_UPDATE(double);
FB_REGISTER_ASSIGN_UPDATE(int32_t);
FB_REGISTER_ASSIGN_UPDATE(int64_t);
#undef FB_REGISTER_ASSIGN_UPDATE

REGISTER_KERNEL(
    KernelDefBuilder("Const").Device(DEVICE_GPU).TypeConstraint<int32_t>("dtype").HostMemory(
        "output"),
    GpuConstOp<true>);
const bool kConstRegistered = [] {
  for (DataType dt : {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16,
                      DataType::kInt8, DataType::kInt16, DataType::kInt64, DataType::kUInt8,
                      DataType::kUInt16, DataType::kUInt32, DataType::kUInt64, DataType::kBool})
    KernelRegistry::Global()->Register(
        KernelDefBuilder("Const").Device(DEVICE_GPU).TypeConstraint("dtype", dt),
        [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
          return std::make_unique<GpuConstOp<false>>(c);
        });
  return true;
}();

}  // namespace
}  // namespace fb::gpu
