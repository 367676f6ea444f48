// _Send and _Recv: the pair that replaces every cross-device edge after partitioning (whitepaper
// 3.2.2, Figure 4). The key is (send_device, recv_device, tensor_name, frame, iteration); the
// step is the Rendezvous object itself. _Recv is asynchronous (5.3): it holds no thread while
// waiting. Dead values (control flow, 4.4) travel as is_dead. A _Recv marked kRecvHostMemoryAttr
// by the partitioner (its consumers read HostMemory inputs) outputs the received host tensor
// without copying it to its device (TensorFlow's _HostRecv).
#include "engine/framework/op_kernel.h"
#include "engine/framework/progress_thread.h"
#include "engine/framework/shape_inference.h"
#include "engine/framework/tensor_allocate.h"

namespace fb {

REGISTER_OP("_Send")
    .Input("tensor: T")
    .Attr("T: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("recv_device: string")
    .SetIsStateful()
    .Doc("Sends `tensor` to recv_device through the step's Rendezvous (3.2.2).");

REGISTER_OP("_Recv")
    .Output("tensor: T")
    .Attr("T: type")
    .Attr("tensor_name: string")
    .Attr("send_device: string")
    .Attr("recv_device: string")
    .Attr("shape: shape = []")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unknown)
    .Doc("Receives the tensor sent by the matching _Send (3.2.2).");

namespace {
// The kernel's key in the root frame, with its FullKey computed once.
Rendezvous::ParsedKey MakeKey(OpKernelConstruction* c) {
  Rendezvous::ParsedKey key;
  c->SetStatus(c->GetAttr("tensor_name", &key.edge_name));
  c->SetStatus(c->GetAttr("send_device", &key.src_device));
  c->SetStatus(c->GetAttr("recv_device", &key.dst_device));
  key.full_key = key.FullKey();
  return key;
}

// `root_key` in the context's frame and iteration: itself in the root frame (no copy), else a
// copy in `scratch`.
const Rendezvous::ParsedKey& KeyInFrame(const Rendezvous::ParsedKey& root_key, OpKernelContext* ctx,
                                        Rendezvous::ParsedKey* scratch) {
  if (ctx->frame_iter() == FrameAndIter{}) return root_key;
  *scratch = root_key;
  scratch->frame_iter = ctx->frame_iter();
  scratch->full_key.clear();
  return *scratch;
}
}  // namespace

class SendOp : public OpKernel {
 public:
  explicit SendOp(OpKernelConstruction* c) : OpKernel(c), key_(MakeKey(c)) {}
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->rendezvous() != nullptr, Internal("_Send run without a rendezvous"));
    Rendezvous::ParsedKey scratch;
    const Rendezvous::ParsedKey& key = KeyInFrame(key_, ctx, &scratch);
    if (ctx->is_input_dead()) {
      OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(key, Tensor(), true));
      return;
    }
    auto host = ctx->device()->CopyToHost(ctx->input(0));
    OP_REQUIRES_OK(ctx, host.status());
    OP_REQUIRES_OK(ctx, ctx->rendezvous()->Send(key, *host, false));
  }
  bool IsExpensive() const override { return false; }

 private:
  Rendezvous::ParsedKey key_;
};

// Larger received tensors are not copied on a progress thread (engine/framework/progress_thread.h).
constexpr int64_t kMaxCopyOnProgressThreadBytes = 64 << 10;

class RecvOp : public AsyncOpKernel {
 public:
  explicit RecvOp(OpKernelConstruction* c) : AsyncOpKernel(c), key_(MakeKey(c)) {
    // Only a device with its own memory keeps a host-memory _Recv apart (on a CPU the tensor
    // still moves into the device's allocator, for per-device peak memory).
    if (c->HasAttr(kRecvHostMemoryAttr) && !c->device()->GetAllocator()->IsHostMemory())
      c->SetStatus(c->GetAttr(kRecvHostMemoryAttr, &host_memory_));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    OP_REQUIRES_ASYNC(ctx, ctx->rendezvous() != nullptr, Internal("_Recv run without a rendezvous"),
                      done);
    Rendezvous::ParsedKey scratch;
    const Rendezvous::ParsedKey& key = KeyInFrame(key_, ctx, &scratch);
    const bool host_memory = host_memory_;
    ctx->rendezvous()->RecvAsync(key, [ctx, done, host_memory](const Status& s, const Tensor& v,
                                                               bool dead) {
      if (!s.ok()) {
        ctx->SetStatus(s);
      } else if (dead) {
        ctx->set_output_dead(0);
      } else if (host_memory && InHostMemory(v)) {
        ctx->set_output(0, v);
      } else {
        auto on_device = ctx->device()->CopyFromHost(v);
        if (!on_device.ok()) {
          ctx->SetStatus(on_device.status());
        } else if (ctx->allocator()->IsHostMemory() &&
                   BaseAllocator(*on_device) != ctx->allocator()) {
          // Devices of one process share host memory, but each device models its own memory:
          // the received tensor moves into this device's allocator (peak memory per device).
          // (A GPU's CopyFromHost already allocated it in the GPU's memory.)
          // On a progress thread a large copy goes to the executor's runner.
          if (IsProgressThread() && on_device->TotalBytes() > kMaxCopyOnProgressThreadBytes &&
              ctx->params().runner != nullptr) {
            (*ctx->params().runner)([ctx, done, src = *on_device] {
              ctx->set_output(0, src.DeepCopy(ctx->allocator()));
              done();
            });
            return;
          }
          ctx->set_output(0, on_device->DeepCopy(ctx->allocator()));
        } else {
          ctx->set_output(0, *on_device);
        }
      }
      done();
    });
  }
  // Starting a Recv only registers a callback: it runs inline wherever it becomes ready (the
  // step's start on a worker runs on the MPI progress thread, which must not hand the Recv to
  // a pool thread just to register it).
  bool IsExpensive() const override { return false; }

 private:
  Rendezvous::ParsedKey key_;
  bool host_memory_ = false;
};

REGISTER_KERNEL(KernelDefBuilder("_Send").Device(DEVICE_CPU), SendOp);
REGISTER_KERNEL(KernelDefBuilder("_Recv").Device(DEVICE_CPU), RecvOp);
REGISTER_KERNEL(KernelDefBuilder("_Send").Device(DEVICE_GPU), SendOp);
REGISTER_KERNEL(KernelDefBuilder("_Recv").Device(DEVICE_GPU), RecvOp);

}  // namespace fb
