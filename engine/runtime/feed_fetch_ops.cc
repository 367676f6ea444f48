// _Feed and _Fetch: the nodes the Session's feed/fetch rewrite (whitepaper 4.2) inserts. A _Feed
// node produces the tensor the client fed; a _Fetch node hands its input back to the client.
// Both have kernels for every device type that registers a device factory (CPU here; GPU
// devices copy through host memory).
#include "engine/framework/op_kernel.h"
#include "engine/framework/shape_inference.h"
#include "engine/runtime/call_frame.h"

namespace fb {

REGISTER_OP("_Feed")
    .Output("output: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .Attr("shape: shape = []")
    .SetIsStateful()
    .SetShapeFn(shape_fns::Unknown)
    .Doc("Produces feed number `index` of the current Run (inserted by the feed rewrite, 4.2).");

REGISTER_OP("_Fetch")
    .Input("input: T")
    .Attr("T: type")
    .Attr("index: int >= 0")
    .SetIsStateful()
    .Doc("Returns its input as fetch number `index` of the current Run (fetch rewrite, 4.2).");

class FeedOp : public OpKernel {
 public:
  explicit FeedOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("index", &index_)); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->call_frame() != nullptr, Internal("_Feed run without a call frame"));
    auto t = ctx->call_frame()->GetArg(index_);
    OP_REQUIRES_OK(ctx, t.status());
    auto on_device = ctx->device()->CopyFromHost(*t);
    OP_REQUIRES_OK(ctx, on_device.status());
    ctx->set_output(0, *on_device);
  }
  bool IsExpensive() const override { return false; }

 private:
  int index_ = 0;
};

class FetchOp : public OpKernel {
 public:
  explicit FetchOp(OpKernelConstruction* c) : OpKernel(c) { c->SetStatus(c->GetAttr("index", &index_)); }
  void Compute(OpKernelContext* ctx) override {
    OP_REQUIRES(ctx, ctx->call_frame() != nullptr, Internal("_Fetch run without a call frame"));
    auto host = ctx->device()->CopyToHost(ctx->input(0));
    OP_REQUIRES_OK(ctx, host.status());
    // Fetched tensors outlive the Session and so its devices' allocators: hand out a copy owned
    // by the process-wide allocator (a device allocator's buffer would be freed into a dead one).
    Tensor out = *host;
    if (out.IsInitialized() && out.allocator() != nullptr && out.allocator() != DefaultCpuAllocator())
      out = out.DeepCopy(DefaultCpuAllocator());
    OP_REQUIRES_OK(ctx, ctx->call_frame()->SetRetval(index_, out));
  }
  bool IsExpensive() const override { return false; }

 private:
  int index_ = 0;
};

REGISTER_KERNEL(KernelDefBuilder("_Feed").Device(DEVICE_CPU), FeedOp);
REGISTER_KERNEL(KernelDefBuilder("_Fetch").Device(DEVICE_CPU), FetchOp);
REGISTER_KERNEL(KernelDefBuilder("_Feed").Device(DEVICE_GPU), FeedOp);
REGISTER_KERNEL(KernelDefBuilder("_Fetch").Device(DEVICE_GPU), FetchOp);

}  // namespace fb
