// GPU kernels of ApplyGradientDescent, ApplyMomentum and ApplyAdam (engine/ops/training_ops.cc)
// for variables whose tensors live in GPU memory. As on the CPU (kernels/cpu/training_ops.cc):
// the Ref inputs' mutexes are taken together, shapes are checked, a buffer that a reader still
// holds is copied first, and the update is one fused launch; the scalar hyper-parameters stay in
// GPU memory and are read by the kernel, so nothing waits for the GPU.
#include <mutex>

#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {
namespace {

template <typename T>
class GpuApplyOp : public OpKernel {
 public:
  // num_refs: leading Ref inputs (var, accum, ...); grad: index of the gradient input.
  GpuApplyOp(OpKernelConstruction* c, int num_refs, int grad) : OpKernel(c), num_refs_(num_refs),
                                                                grad_(grad) {
    for (const ArgDef& a : c->op_def().inputs) names_.push_back(a.name);
    if (c->HasAttr("use_nesterov")) c->SetStatus(c->GetAttr("use_nesterov", &nesterov_));
  }
  void Compute(OpKernelContext* ctx) override {
    std::vector<Var*> vars;
    for (int i = 0; i < num_refs_; ++i) {
      Var* v = ctx->input_ref(i);
      OP_REQUIRES(ctx, v != nullptr, Internal("input ", i, " is not a reference"));
      OP_REQUIRES(ctx, std::find(vars.begin(), vars.end(), v) == vars.end(),
                  InvalidArgument("the same variable is passed as input ", i, " and earlier"));
      vars.push_back(v);
    }
    std::vector<std::unique_lock<std::mutex>> locks;
    for (Var* v : vars) locks.emplace_back(*v->mu(), std::defer_lock);
    if (locks.size() == 1) locks[0].lock();
    else if (locks.size() == 2) std::lock(locks[0], locks[1]);
    else std::lock(locks[0], locks[1], locks[2]);
    OP_REQUIRES_OK(ctx, Check(ctx, vars));
    std::vector<T*> v;
    for (Var* var : vars) {
      OP_REQUIRES_OK(ctx, PrepareGpuVarForWrite(ctx, var));
      v.push_back(var->tensor()->template data<T>());
    }
    std::vector<const T*> scalars;
    for (int i = num_refs_; i < ctx->num_inputs(); ++i)
      if (i != grad_) scalars.push_back(ctx->input(i).template data<T>());
    Update(v, scalars, ctx->input(grad_).template data<T>(), ctx->input(grad_).NumElements(),
           GpuOf(ctx)->compute_stream());
    ctx->set_output_ref(0, vars[0]);
  }

 protected:
  virtual void Update(const std::vector<T*>& vars, const std::vector<const T*>& scalars,
                      const T* grad, int64_t n, cudaStream_t s) = 0;
  bool nesterov_ = false;

 private:
  Status Check(OpKernelContext* ctx, const std::vector<Var*>& vars) const {
    for (size_t i = 0; i < vars.size(); ++i) {
      if (!vars[i]->is_initialized())
        return FailedPrecondition("attempting to use uninitialized variable (input '", names_[i],
                                  "')");
      if (vars[i]->tensor()->shape() != vars[0]->tensor()->shape())
        return InvalidArgument(names_[i], " has shape ", vars[i]->tensor()->shape().DebugString(),
                               " but var has shape ", vars[0]->tensor()->shape().DebugString());
    }
    for (int i = num_refs_; i < ctx->num_inputs(); ++i) {
      const TensorShape& want = i == grad_ ? vars[0]->tensor()->shape() : TensorShape{};
      if (ctx->input(i).shape() != want)
        return InvalidArgument(names_[i], " has shape ", ctx->input(i).shape().DebugString(),
                               ", expected ", want.DebugString());
    }
    return Status::OK();
  }
  int num_refs_, grad_;
  std::vector<std::string> names_;
};

// inputs: var, alpha, delta
template <typename T>
class GpuApplyGradientDescentOp : public GpuApplyOp<T> {
 public:
  explicit GpuApplyGradientDescentOp(OpKernelConstruction* c) : GpuApplyOp<T>(c, 1, 2) {}
  void Update(const std::vector<T*>& v, const std::vector<const T*>& s, const T* grad, int64_t n,
              cudaStream_t stream) override {
    LaunchApplyGradientDescent<T>(v[0], s[0], grad, n, stream);
  }
};

// inputs: var, accum, lr, grad, momentum
template <typename T>
class GpuApplyMomentumOp : public GpuApplyOp<T> {
 public:
  explicit GpuApplyMomentumOp(OpKernelConstruction* c) : GpuApplyOp<T>(c, 2, 3) {}
  void Update(const std::vector<T*>& v, const std::vector<const T*>& s, const T* grad, int64_t n,
              cudaStream_t stream) override {
    LaunchApplyMomentum<T>(v[0], v[1], s[0], grad, s[1], this->nesterov_, n, stream);
  }
};

// inputs: var, m, v, beta1_power, beta2_power, lr, beta1, beta2, epsilon, grad
template <typename T>
class GpuApplyAdamOp : public GpuApplyOp<T> {
 public:
  explicit GpuApplyAdamOp(OpKernelConstruction* c) : GpuApplyOp<T>(c, 3, 9) {}
  void Update(const std::vector<T*>& v, const std::vector<const T*>& s, const T* grad, int64_t n,
              cudaStream_t stream) override {
    LaunchApplyAdam<T>(v[0], v[1], v[2], s.data(), grad, this->nesterov_, n, stream);
  }
};

FB_REGISTER_GPU_FD("ApplyGradientDescent", GpuApplyGradientDescentOp);
FB_REGISTER_GPU_FD("ApplyMomentum", GpuApplyMomentumOp);
FB_REGISTER_GPU_FD("ApplyAdam", GpuApplyAdamOp);

}  // namespace
}  // namespace fb::gpu
