// NcclAllReduce: synchronous data-parallel gradient aggregation across the GPUs of one process
// (whitepaper 7 / issue 7: "NCCL allreduce as a synchronous data-parallel option"), after
// TensorFlow's NcclAllReduce op and NcclManager. The op exists only where flowbench is built with
// CUDA, so it is defined here next to its only kernel.
//
// Each of the `num_devices` nodes sharing `shared_name` (one per GPU) contributes its tensor in
// the same step; when the last one arrives, the collective is launched as one NCCL group over
// every participant's compute stream (communicators are created once per set of GPUs and cached),
// and each node's output is its device's copy of the reduction. Launching is stream-ordered, so
// the kernels return without waiting for the GPU. InvalidArgument when participants disagree on
// shape, dtype or num_devices, or when two nodes of one collective run on the same GPU.
#include <nccl.h>

#include <algorithm>
#include <map>

#include "engine/framework/op_def.h"
#include "engine/framework/shape_inference.h"
#include "kernels/cuda/gpu_kernel_util.h"

namespace fb::gpu {

REGISTER_OP("NcclAllReduce")
    .Input("input: T")
    .Output("data: T")
    .Attr("reduction: string = \"sum\"")  // sum, prod, max or min
    .Attr("T: {float, double}")
    .Attr("num_devices: int")
    .Attr("shared_name: string")
    .SetIsStateful()
    .SetShapeFn(shape_fns::UnchangedShape)
    .Doc("All-reduce of `input` across the num_devices GPUs running nodes with this shared_name; "
         "every output holds the reduction. NCCL (kernels/cuda/nccl_ops.cc).");

namespace {

struct Participant {
  GpuDevice* gpu;
  OpKernelContext* ctx;
  Tensor input;
  Tensor* output;
  AsyncOpKernel::DoneCallback done;
};

struct Collective {
  int num_devices = 0;
  ncclRedOp_t op = ncclSum;
  std::vector<Participant> participants;
};

Status NcclStatus(ncclResult_t r, const char* what) {
  if (r == ncclSuccess) return Status::OK();
  return Internal(what, " failed: ", ncclGetErrorString(r));
}

// Gathers participants and launches complete collectives (TensorFlow's NcclManager).
class NcclManager {
 public:
  static NcclManager* Global() {
    static auto* m = new NcclManager;
    return m;
  }

  void Add(const std::string& key, int num_devices, ncclRedOp_t op, Participant p) {
    Collective ready;
    {
      std::lock_guard<std::mutex> l(mu_);
      Collective& c = pending_[key];
      c.num_devices = num_devices;
      c.op = op;
      c.participants.push_back(std::move(p));
      if (static_cast<int>(c.participants.size()) < num_devices) return;
      ready = std::move(c);
      pending_.erase(key);
    }
    Status s = Launch(&ready);
    for (Participant& q : ready.participants) {
      q.ctx->SetStatus(s);
      q.done();
    }
  }

 private:
  Status Check(const Collective& c) {
    const Participant& first = c.participants[0];
    std::vector<int> seen;
    for (const Participant& q : c.participants) {
      if (q.input.shape() != first.input.shape() || q.input.dtype() != first.input.dtype())
        return InvalidArgument("NcclAllReduce participants disagree: ",
                               q.input.TypeAndShapeString(), " on ", q.gpu->name(), " vs ",
                               first.input.TypeAndShapeString(), " on ", first.gpu->name());
      if (std::count(seen.begin(), seen.end(), q.gpu->ordinal()))
        return InvalidArgument("two NcclAllReduce participants run on ", q.gpu->name());
      seen.push_back(q.gpu->ordinal());
    }
    return Status::OK();
  }

  // Communicators for the participants' GPUs (in participant order), created once per GPU set.
  StatusOr<std::vector<ncclComm_t>> Comms(const Collective& c) {
    std::vector<int> ordinals;
    for (const Participant& q : c.participants) ordinals.push_back(q.gpu->ordinal());
    std::vector<int> sorted = ordinals;
    std::sort(sorted.begin(), sorted.end());
    std::lock_guard<std::mutex> l(mu_);
    auto it = comms_.find(sorted);
    if (it == comms_.end()) {
      std::vector<ncclComm_t> comms(sorted.size());
      RETURN_IF_ERROR(NcclStatus(
          ncclCommInitAll(comms.data(), static_cast<int>(sorted.size()), sorted.data()),
          "ncclCommInitAll"));
      it = comms_.emplace(sorted, std::move(comms)).first;
    }
    std::vector<ncclComm_t> out;
    for (int o : ordinals)
      out.push_back(it->second[std::find(sorted.begin(), sorted.end(), o) - sorted.begin()]);
    return out;
  }

  Status Launch(Collective* c) {
    RETURN_IF_ERROR(Check(*c));
    ASSIGN_OR_RETURN(std::vector<ncclComm_t> comms, Comms(*c));
    const bool is_double = c->participants[0].input.dtype() == DataType::kDouble;
    RETURN_IF_ERROR(NcclStatus(ncclGroupStart(), "ncclGroupStart"));
    Status s;
    for (size_t i = 0; i < c->participants.size() && s.ok(); ++i) {
      Participant& q = c->participants[i];
      cudaSetDevice(q.gpu->ordinal());
      s = NcclStatus(ncclAllReduce(q.input.raw_data(), q.output->raw_data(),
                                   q.input.NumElements(), is_double ? ncclDouble : ncclFloat,
                                   c->op, comms[i], q.gpu->compute_stream()),
                     "ncclAllReduce");
    }
    Status end = NcclStatus(ncclGroupEnd(), "ncclGroupEnd");
    return s.ok() ? end : s;
  }

  std::mutex mu_;
  std::map<std::string, Collective> pending_;
  std::map<std::vector<int>, std::vector<ncclComm_t>> comms_;
};

class NcclAllReduceOp : public AsyncOpKernel {
 public:
  explicit NcclAllReduceOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    std::string reduction;
    c->SetStatus(c->GetAttr("reduction", &reduction));
    c->SetStatus(c->GetAttr("num_devices", &num_devices_));
    c->SetStatus(c->GetAttr("shared_name", &shared_name_));
    const std::map<std::string, ncclRedOp_t> ops = {
        {"sum", ncclSum}, {"prod", ncclProd}, {"max", ncclMax}, {"min", ncclMin}};
    auto it = ops.find(reduction);
    if (it == ops.end())
      c->SetStatus(InvalidArgument("reduction must be sum, prod, max or min, got '", reduction,
                                   "'"));
    else
      op_ = it->second;
    if (num_devices_ < 1) c->SetStatus(InvalidArgument("num_devices must be >= 1"));
  }
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    Tensor* out;
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_output(0, ctx->input(0).shape(), &out), done);
    const std::string key = shared_name_ + "/" + std::to_string(ctx->step_id());
    NcclManager::Global()->Add(key, num_devices_, op_,
                               Participant{GpuOf(ctx), ctx, ctx->input(0), out, std::move(done)});
  }

 private:
  int64_t num_devices_ = 1;
  std::string shared_name_;
  ncclRedOp_t op_ = ncclSum;
};

REGISTER_KERNEL(KernelDefBuilder("NcclAllReduce").Device(DEVICE_GPU).TypeConstraint<float>("T"),
                NcclAllReduceOp);
REGISTER_KERNEL(KernelDefBuilder("NcclAllReduce").Device(DEVICE_GPU).TypeConstraint<double>("T"),
                NcclAllReduceOp);

}  // namespace
}  // namespace fb::gpu
