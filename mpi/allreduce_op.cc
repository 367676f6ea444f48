// MpiAllreduce: sums (or averages) a list of tensors across every rank of MPI_COMM_WORLD, the
// collective behind allreduce-based synchronous data parallelism (the alternative to parameter
// servers, issue 5; whitepaper section 7 describes the parameter-server form). The inputs are
// packed into one buffer and reduced with a single MPI_Iallreduce posted by the transport's
// progress thread, so the kernel is asynchronous (5.3) and one step costs one collective.
// Every rank must run the same MpiAllreduce nodes in the same order: build one fused node per
// step (BuildAllreduceReplica does), since the executor may order independent nodes differently
// on different ranks.
#include <cstring>

#include "engine/framework/op_kernel.h"
#include "engine/framework/shape_inference.h"
#include "mpi/mpi_status.h"
#include "mpi/mpi_transport.h"

namespace fb::mpi {

namespace {
Status ListUnchanged(InferenceContext* c) {
  for (int i = 0; i < c->num_outputs(); ++i) c->set_output(i, c->input(i));
  return Status::OK();
}
}  // namespace

REGISTER_OP("MpiAllreduce")
    .Input("tensors: N * T")
    .Output("reduced: N * T")
    .Attr("N: int >= 1")
    .Attr("T: {float, double, int32, int64}")
    .Attr("average: bool = false")
    .SetIsStateful()
    .SetShapeFn(ListUnchanged)
    .Doc("Element-wise sum (average: divided by the number of ranks) of each input across every "
         "MPI rank, shapes unchanged. One MPI_Iallreduce per run for all N tensors.");

template <typename T>
class MpiAllreduceOp : public AsyncOpKernel {
 public:
  explicit MpiAllreduceOp(OpKernelConstruction* c) : AsyncOpKernel(c) {
    c->SetStatus(c->GetAttr("average", &average_));
  }

  void ComputeAsync(OpKernelContext* ctx, DoneCallback done) override {
    int64_t total = 0;
    for (int i = 0; i < ctx->num_inputs(); ++i) total += ctx->input(i).NumElements();
    auto packed = std::make_shared<Tensor>();
    OP_REQUIRES_OK_ASYNC(ctx, ctx->allocate_temp(DataTypeToEnum<T>::value, TensorShape{total}, packed.get()), done);
    T* p = packed->data<T>();
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      const Tensor& in = ctx->input(i);
      std::memcpy(p, in.data<T>(), in.NumElements() * sizeof(T));
      p += in.NumElements();
    }
    MpiTransport::Get()->Allreduce(
        MPI_COMM_WORLD, packed->data<T>(), total, DataTypeToEnum<T>::value,
        [this, ctx, packed, done](const Status& s) {
          if (!s.ok()) {
            ctx->SetStatus(s);
            done();
            return;
          }
          Unpack(ctx, *packed);
          done();
        });
  }

 private:
  void Unpack(OpKernelContext* ctx, const Tensor& packed) {
    const T* p = packed.data<T>();
    T scale = average_ ? T(WorldSize()) : T(1);
    for (int i = 0; i < ctx->num_inputs(); ++i) {
      Tensor* out = nullptr;
      Status s = ctx->allocate_output(i, ctx->input(i).shape(), &out);
      if (!s.ok()) return ctx->SetStatus(s);
      T* o = out->data<T>();
      for (int64_t k = 0; k < out->NumElements(); ++k) o[k] = p[k] / scale;
      p += out->NumElements();
    }
  }
  bool average_ = false;
};

REGISTER_KERNEL(KernelDefBuilder("MpiAllreduce").Device(DEVICE_CPU).TypeConstraint<float>("T"), MpiAllreduceOp<float>);
REGISTER_KERNEL(KernelDefBuilder("MpiAllreduce").Device(DEVICE_CPU).TypeConstraint<double>("T"), MpiAllreduceOp<double>);
REGISTER_KERNEL(KernelDefBuilder("MpiAllreduce").Device(DEVICE_CPU).TypeConstraint<int32_t>("T"), MpiAllreduceOp<int32_t>);
REGISTER_KERNEL(KernelDefBuilder("MpiAllreduce").Device(DEVICE_CPU).TypeConstraint<int64_t>("T"), MpiAllreduceOp<int64_t>);

}  // namespace fb::mpi
