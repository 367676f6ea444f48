// Kernels of the forward-accumulator ops (engine/ops/accumulator_ops.cc): a map from iteration
// index to tensor, guarded by a mutex, living in its own ResourceMgr container so that the Pop
// that empties it can drop it. (An accumulator that never gets a value, because the loop ran no
// iteration or every saved value was dead, stays until its container is reset.)
#include "kernels/cpu/accumulator_kernels.h"

#include <map>
#include <mutex>

namespace fb {

namespace {

class Accumulator : public ResourceBase {
 public:
  std::string DebugString() const override { return "ForwardAccumulator"; }
  std::mutex mu;
  std::map<int32_t, Tensor> values;
};

std::string ContainerFor(const std::string& handle) { return "_accumulator/" + handle; }

StatusOr<std::shared_ptr<Accumulator>> Lookup(OpKernelContext* ctx) {
  const Tensor& h = ctx->input(0);
  if (h.dims() != 0) return InvalidArgument("handle must be a scalar string");
  const std::string& name = h.scalar<std::string>();
  return ctx->resource_manager()->Lookup<Accumulator>(ContainerFor(name), name);
}

// The index input on the host (a GPU kernel may receive it in device memory).
StatusOr<int32_t> Index(OpKernelContext* ctx) {
  const Tensor& t = ctx->input(1);
  if (t.dims() != 0)
    return InvalidArgument("index must be a scalar, got ", t.shape().DebugString());
  ASSIGN_OR_RETURN(Tensor host, ctx->device()->CopyToHost(t));
  return host.scalar<int32_t>();
}

}  // namespace

void ForwardAccumulatorOp::Compute(OpKernelContext* ctx) {
  const FrameAndIter& fi = ctx->frame_iter();
  std::string name = this->name() + "/" + std::to_string(ctx->step_id()) + "/" +
                     std::to_string(fi.frame_id) + "/" + std::to_string(fi.iter_id);
  auto acc = ctx->resource_manager()->LookupOrCreate<Accumulator>(
      ContainerFor(name), name, [] { return std::make_shared<Accumulator>(); });
  OP_REQUIRES_OK(ctx, acc.status());
  ctx->set_output(0, Tensor::Scalar<std::string>(name));
}

void AccumulatorPushOp::Compute(OpKernelContext* ctx) {
  auto acc = Lookup(ctx);
  OP_REQUIRES_OK(ctx, acc.status());
  auto index = Index(ctx);
  OP_REQUIRES_OK(ctx, index.status());
  std::lock_guard<std::mutex> l((*acc)->mu);
  bool inserted = (*acc)->values.emplace(*index, ctx->input(2)).second;
  OP_REQUIRES(ctx, inserted, AlreadyExists("index ", *index, " was already pushed"));
}

void AccumulatorPopOp::Compute(OpKernelContext* ctx) {
  auto index = Index(ctx);
  OP_REQUIRES_OK(ctx, index.status());
  auto acc = Lookup(ctx);
  if (acc.status().code() == Code::kNotFound) {
    // Every pushed value was popped already (the last Pop dropped the accumulator, and all
    // pushes happened before the first Pop): this index was never pushed, so it was dead.
    ctx->set_output_dead(0);
    return;
  }
  OP_REQUIRES_OK(ctx, acc.status());
  Tensor value;
  bool now_empty;
  {
    std::lock_guard<std::mutex> l((*acc)->mu);
    auto it = (*acc)->values.find(*index);
    if (it == (*acc)->values.end()) {
      // Nothing was pushed: the forward value was dead in that iteration (an untaken branch),
      // so is its restored value.
      ctx->set_output_dead(0);
      return;
    }
    value = std::move(it->second);
    (*acc)->values.erase(it);
    now_empty = (*acc)->values.empty();
  }
  OP_REQUIRES(ctx, value.dtype() == output_type(0),
              InvalidArgument("value at index ", *index, " is ", DataTypeString(value.dtype()),
                              ", expected ", DataTypeString(output_type(0))));
  if (now_empty)
    ctx->resource_manager()->Cleanup(ContainerFor(ctx->input(0).scalar<std::string>()));
  ctx->set_output(0, value);
}

REGISTER_KERNEL(KernelDefBuilder("ForwardAccumulator").Device(DEVICE_CPU), ForwardAccumulatorOp);
REGISTER_KERNEL(KernelDefBuilder("AccumulatorPush").Device(DEVICE_CPU), AccumulatorPushOp);
REGISTER_KERNEL(KernelDefBuilder("AccumulatorPop").Device(DEVICE_CPU), AccumulatorPopOp);

}  // namespace fb
