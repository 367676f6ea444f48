// GPU kernels of the state ops (engine/ops/state_ops.cc: Variable, Assign, AssignAdd,
// AssignSub; whitepaper 4.7) and of Const and StopGradient. The Variable, Const and Identity
// kernels and Assign's checks are the CPU's (kernels/cpu/variable_op.h, basic_kernels.h): the Var
// lives in the device's ResourceMgr and is passed on as a reference; Assign copies the value into
// a new buffer from the GPU allocator (or takes the value's buffer when nothing else holds it),
// AssignAdd/AssignSub update in place under the Var's mutex after PrepareGpuVarForWrite. Every
// copy and update is queued on the compute stream; nothing waits for the GPU.
//
// Const keeps its value in GPU memory, copied once when the kernel is built, except int32 Consts:
// those are shapes, axes and sizes, registered with HostMemory("output") (TensorFlow's
// HostConstantOp) and kept in host memory so that the kernels reading them on the host
// (HostInput) need no device-to-host copy. GPU kernels that use an int32 tensor as device data
// copy a host-memory input to the GPU first (InputOnGpu), so they work whether or not the
// executor places HostMemory outputs in host memory.
#include <mutex>

#include "kernels/cpu/basic_kernels.h"
#include "kernels/cpu/variable_op.h"
#include "kernels/cuda/cuda_status.h"
#include "kernels/cuda/gpu_kernel_util.h"
#include "kernels/cuda/state_launch.h"
#include "kernels/cuda/state_util.h"

namespace fb::gpu {
namespace {

// The Variable kernel and Assign's checks are the CPU's (kernels/cpu/variable_op.h); Assign
// takes the value's buffer only when it is in GPU memory, else copies it to a new GPU tensor.
class GpuAssignOp : public AssignOpBase {
 public:
  using AssignOpBase::AssignOpBase;

 protected:
  bool CanTakeBuffer(const Tensor& value) const override { return IsGpuMemory(value); }
  StatusOr<Tensor> CopyValue(OpKernelContext* ctx, const Tensor& value) const override {
    return CopyToNewGpuTensor(ctx, value);
  }
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
      OP_REQUIRES_OK(ctx, CheckAssignUpdate(var, value->shape()));
      OP_REQUIRES_OK(ctx, PrepareGpuVarForWrite(ctx, var));
      LaunchAssignUpdate<T>(var->tensor()->template data<T>(), value->template data<T>(), kAdd,
                            value->NumElements(), GpuOf(ctx)->compute_stream());
    }
    ctx->set_output_ref(0, var);
  }
};

REGISTER_KERNEL(KernelDefBuilder("Variable").Device(DEVICE_GPU), VariableOp);
REGISTER_KERNEL(KernelDefBuilder("Assign").Device(DEVICE_GPU), GpuAssignOp);
REGISTER_KERNEL(KernelDefBuilder("StopGradient").Device(DEVICE_GPU), IdentityOp);

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
    ConstOp<true>);
const bool kConstRegistered = [] {
  for (DataType dt : {DataType::kFloat, DataType::kDouble, DataType::kHalf, DataType::kBFloat16,
                      DataType::kInt8, DataType::kInt16, DataType::kInt64, DataType::kUInt8,
                      DataType::kUInt16, DataType::kUInt32, DataType::kUInt64, DataType::kBool})
    KernelRegistry::Global()->Register(
        KernelDefBuilder("Const").Device(DEVICE_GPU).TypeConstraint("dtype", dt),
        [](OpKernelConstruction* c) -> std::unique_ptr<OpKernel> {
          return std::make_unique<ConstOp<false>>(c);
        });
  return true;
}();

}  // namespace
}  // namespace fb::gpu
