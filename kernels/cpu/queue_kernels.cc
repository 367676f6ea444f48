// Kernels of the queue ops (engine/ops/data_flow_ops.cc, whitepaper 4.6). The queue lives in the
// device's ResourceMgr; its handle is the string "container|shared_name". Enqueue and Dequeue
// are AsyncOpKernels (5.3): they register an attempt with the queue and return; the queue calls
// back when the attempt completes.
#include <cstring>

#include "engine/framework/op_kernel.h"
#include "kernels/cpu/queue.h"

namespace fb {

namespace {

std::string MakeHandle(const std::string& container, const std::string& name) {
  return container + "|" + name;
}

StatusOr<std::shared_ptr<Queue>> LookupQueue(OpKernelContext* ctx) {
  const Tensor& h = ctx->input(0);
  if (h.dtype() != DataType::kString || h.dims() != 0)
    return InvalidArgument("queue handle must be a string scalar");
  const std::string& handle = h.scalar<std::string>();
  size_t bar = handle.find('|');
  if (bar == std::string::npos) return InvalidArgument("malformed queue handle '", handle, "'");
  auto q = ctx->resource_manager()->Lookup<Queue>(handle.substr(0, bar), handle.substr(bar + 1));
  if (!q.ok())
    return NotFound("queue '", handle.substr(bar + 1), "' not found on ", ctx->device()->name(),
                    " (queue ops must run on the queue's device)");
  return q;
}

// Copies element `src` into row `row` of `dst` (dst: [n, ...src.shape]).
void CopyRow(const Tensor& src, int64_t row, Tensor* dst) {
  const int64_t count = src.NumElements();
  if (src.dtype() == DataType::kString) {
    for (int64_t i = 0; i < count; ++i)
      dst->data<std::string>()[row * count + i] = src.data<std::string>()[i];
    return;
  }
  const size_t bytes = src.ByteSize();
  std::memcpy(static_cast<char*>(dst->raw_data()) + row * bytes, src.raw_data(), bytes);
}

// With a cancellable step, a token whose cancellation withdraws the request made with it (the
// queue, given `cm`, refuses requests once `cm` is cancelled); -1 otherwise.
CancellationToken RegisterCancel(CancellationManager* cm, const std::shared_ptr<Queue>& q) {
  if (cm == nullptr) return -1;
  const CancellationToken token = cm->get_cancellation_token();
  cm->RegisterCallback(token, "", [q, token] { q->Cancel(token); });
  return token;
}

}  // namespace

// FIFOQueue and RandomShuffleQueue: create (once) and return the handle.
class QueueOp : public OpKernel {
 public:
  explicit QueueOp(OpKernelConstruction* c) : OpKernel(c) {
    opts_.name = c->def().name;
    opts_.shuffle = c->def().op == "RandomShuffleQueue";
    c->SetStatus(c->GetAttr("component_types", &opts_.component_types));
    c->SetStatus(c->GetAttr("shapes", &opts_.shapes));
    c->SetStatus(c->GetAttr("capacity", &opts_.capacity));
    c->SetStatus(c->GetAttr("container", &container_));
    c->SetStatus(c->GetAttr("shared_name", &shared_name_));
    if (opts_.shuffle) {
      c->SetStatus(c->GetAttr("min_after_dequeue", &opts_.min_after_dequeue));
      c->SetStatus(c->GetAttr("seed", &opts_.seed));
      c->SetStatus(c->GetAttr("seed2", &opts_.seed2));
    }
    if (shared_name_.empty()) shared_name_ = opts_.name;
    if (c->status().ok() && !opts_.shapes.empty() &&
        opts_.shapes.size() != opts_.component_types.size())
      c->SetStatus(InvalidArgument("shapes has ", opts_.shapes.size(), " entries for ",
                                   opts_.component_types.size(), " components"));
    if (c->status().ok() && opts_.component_types.empty())
      c->SetStatus(InvalidArgument("a queue needs at least one component type"));
  }
  void Compute(OpKernelContext* ctx) override {
    auto q = ctx->resource_manager()->LookupOrCreate<Queue>(
        container_, shared_name_, [this] { return std::make_shared<Queue>(opts_); });
    OP_REQUIRES_OK(ctx, q.status());
    ctx->set_output(0, Tensor::Scalar<std::string>(MakeHandle(container_, shared_name_)));
  }
  bool IsExpensive() const override { return false; }

 private:
  Queue::Options opts_;
  std::string container_, shared_name_;
};

class QueueEnqueueOp : public AsyncOpKernel {
 public:
  explicit QueueEnqueueOp(OpKernelConstruction* c)
      : AsyncOpKernel(c), many_(c->def().op == "QueueEnqueueMany") {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto q = LookupQueue(ctx);
    OP_REQUIRES_OK_ASYNC(ctx, q.status(), done);
    Queue::Tuple components;
    for (int i = 1; i < ctx->num_inputs(); ++i) components.push_back(ctx->input(i));
    auto elements = many_ ? Split(components) : StatusOr<std::vector<Queue::Tuple>>(
                                                    std::vector<Queue::Tuple>{components});
    OP_REQUIRES_OK_ASYNC(ctx, elements.status(), done);
    for (const Queue::Tuple& t : *elements) OP_REQUIRES_OK_ASYNC(ctx, (*q)->ValidateTuple(t), done);
    CancellationManager* cm = ctx->cancellation_manager();
    const CancellationToken token = RegisterCancel(cm, *q);
    (*q)->TryEnqueue(
        std::move(*elements),
        [ctx, done, cm, token](const Status& s) {
          if (cm) cm->DeregisterCallback(token);
          ctx->SetStatus(s);
          done();
        },
        cm, token);
  }

 private:
  // Row j of every component forms element j.
  static StatusOr<std::vector<Queue::Tuple>> Split(const Queue::Tuple& components) {
    int64_t n = -1;
    for (size_t i = 0; i < components.size(); ++i) {
      if (components[i].dims() == 0)
        return InvalidArgument("EnqueueMany: component ", i, " is a scalar; need a batch dimension");
      if (n >= 0 && components[i].dim_size(0) != n)
        return InvalidArgument("EnqueueMany: component ", i, " has ", components[i].dim_size(0),
                               " rows, component 0 has ", n);
      n = components[i].dim_size(0);
    }
    std::vector<Queue::Tuple> elements(n);
    for (const Tensor& c : components) {
      std::vector<int64_t> dims(c.shape().dim_sizes().begin() + 1, c.shape().dim_sizes().end());
      for (int64_t j = 0; j < n; ++j)
        elements[j].push_back(c.Slice(j, j + 1).Reshaped(TensorShape(dims)).DeepCopy());
    }
    return elements;
  }
  bool many_;
};

class QueueDequeueOp : public AsyncOpKernel {
 public:
  explicit QueueDequeueOp(OpKernelConstruction* c)
      : AsyncOpKernel(c), many_(c->def().op == "QueueDequeueMany") {}
  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    auto q = LookupQueue(ctx);
    OP_REQUIRES_OK_ASYNC(ctx, q.status(), done);
    int64_t n = 1;
    if (many_) {
      OP_REQUIRES_ASYNC(ctx, ctx->input(1).dims() == 0,
                        InvalidArgument("n must be a scalar"), done);
      n = ctx->input(1).scalar<int32_t>();
      OP_REQUIRES_ASYNC(ctx, n >= 1, InvalidArgument("DequeueMany needs n >= 1, got ", n), done);
    }
    bool many = many_;
    CancellationManager* cm = ctx->cancellation_manager();
    const CancellationToken token = RegisterCancel(cm, *q);
    auto on_done = [ctx, done, many, cm, token](const Status& s,
                                                std::vector<Queue::Tuple> elements) {
      if (cm) cm->DeregisterCallback(token);
      if (!s.ok()) {
        ctx->SetStatus(s);
      } else if (!many) {
        for (size_t i = 0; i < elements[0].size(); ++i) ctx->set_output(i, elements[0][i]);
      } else {
        ctx->SetStatus(Stack(ctx, elements));
      }
      done();
    };
    (*q)->TryDequeue(n, std::move(on_done), cm, token);
  }

 private:
  // Output i = the elements' component i stacked along a new dimension 0.
  static Status Stack(OpKernelContext* ctx, const std::vector<Queue::Tuple>& elements) {
    const int64_t n = static_cast<int64_t>(elements.size());
    for (size_t i = 0; i < elements[0].size(); ++i) {
      const TensorShape& shape = elements[0][i].shape();
      std::vector<int64_t> dims{n};
      dims.insert(dims.end(), shape.dim_sizes().begin(), shape.dim_sizes().end());
      Tensor* out;
      RETURN_IF_ERROR(ctx->allocate_output(static_cast<int>(i), TensorShape(dims), &out));
      for (int64_t j = 0; j < n; ++j) {
        if (elements[j][i].shape() != shape)
          return InvalidArgument("DequeueMany: component ", i, " of element ", j, " has shape ",
                                 elements[j][i].shape().DebugString(), ", element 0 has ",
                                 shape.DebugString());
        CopyRow(elements[j][i], j, out);
      }
    }
    return Status::OK();
  }
  bool many_;
};

class QueueCloseOp : public OpKernel {
 public:
  explicit QueueCloseOp(OpKernelConstruction* c) : OpKernel(c) {
    c->SetStatus(c->GetAttr("cancel_pending_enqueues", &cancel_));
  }
  void Compute(OpKernelContext* ctx) override {
    auto q = LookupQueue(ctx);
    OP_REQUIRES_OK(ctx, q.status());
    (*q)->Close(cancel_);
  }

 private:
  bool cancel_ = false;
};

class QueueSizeOp : public OpKernel {
 public:
  using OpKernel::OpKernel;
  void Compute(OpKernelContext* ctx) override {
    auto q = LookupQueue(ctx);
    OP_REQUIRES_OK(ctx, q.status());
    ctx->set_output(0, Tensor::Scalar<int32_t>(static_cast<int32_t>((*q)->Size())));
  }
};

REGISTER_KERNEL(KernelDefBuilder("FIFOQueue").Device(DEVICE_CPU), QueueOp);
REGISTER_KERNEL(KernelDefBuilder("RandomShuffleQueue").Device(DEVICE_CPU), QueueOp);
REGISTER_KERNEL(KernelDefBuilder("QueueEnqueue").Device(DEVICE_CPU), QueueEnqueueOp);
REGISTER_KERNEL(KernelDefBuilder("QueueEnqueueMany").Device(DEVICE_CPU), QueueEnqueueOp);
REGISTER_KERNEL(KernelDefBuilder("QueueDequeue").Device(DEVICE_CPU), QueueDequeueOp);
REGISTER_KERNEL(KernelDefBuilder("QueueDequeueMany").Device(DEVICE_CPU), QueueDequeueOp);
REGISTER_KERNEL(KernelDefBuilder("QueueClose").Device(DEVICE_CPU), QueueCloseOp);
REGISTER_KERNEL(KernelDefBuilder("QueueSize").Device(DEVICE_CPU), QueueSizeOp);

}  // namespace fb
