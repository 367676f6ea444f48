#pragma once
// OpKernel: the implementation of an op for one device type (whitepaper section 2, "Operations and
// Kernels"). Kernels are created once per node per executor and called once per step (and per
// loop iteration). Synchronous kernels implement Compute; asynchronous kernels (whitepaper 5.3:
// Recv, Dequeue) implement ComputeAsync and call `done` later, holding no thread while waiting.
// Kernels fail through OP_REQUIRES / OP_REQUIRES_OK; the executor prefixes the node's name.
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/framework/cancellation.h"
#include "engine/framework/device.h"
#include "engine/framework/op_def.h"
#include "engine/framework/rendezvous.h"
#include "engine/graph/node_def.h"

namespace fb {

class CallFrame;
class StepStats;

// An input or output value: a tensor, or a reference to a Variable's state (Ref(T) args).
struct TensorValue {
  Tensor tensor;
  Var* ref = nullptr;  // set for references; tensor is then unused
  bool is_ref() const { return ref != nullptr; }
};

class OpKernelConstruction {
 public:
  OpKernelConstruction(Device* device, const NodeDef& def, const OpDef& op_def,
                       std::vector<DataType> input_types, std::vector<DataType> output_types);
  Device* device() const { return device_; }
  const NodeDef& def() const { return def_; }
  const OpDef& op_def() const { return op_def_; }
  const std::vector<DataType>& input_types() const { return input_types_; }
  const std::vector<DataType>& output_types() const { return output_types_; }
  // Per input / output: declared HostMemory by the kernel's registration (KernelDefBuilder).
  const std::vector<bool>& host_memory_inputs() const { return host_inputs_; }
  const std::vector<bool>& host_memory_outputs() const { return host_outputs_; }
  void set_host_memory(std::vector<bool> inputs, std::vector<bool> outputs) {
    host_inputs_ = std::move(inputs);
    host_outputs_ = std::move(outputs);
  }
  template <typename T>
  Status GetAttr(const std::string& name, T* out) const {
    return GetNodeAttr(def_.attrs, name, out);
  }
  bool HasAttr(const std::string& name) const { return def_.attrs.count(name) > 0; }
  void SetStatus(const Status& s) { if (status_.ok()) status_ = s; }
  const Status& status() const { return status_; }

 private:
  Device* device_;
  const NodeDef& def_;
  const OpDef& op_def_;
  std::vector<DataType> input_types_, output_types_;
  std::vector<bool> host_inputs_, host_outputs_;
  Status status_;
};

class OpKernel {
 public:
  explicit OpKernel(OpKernelConstruction* ctx);
  virtual ~OpKernel() = default;
  virtual void Compute(OpKernelContext* ctx) = 0;
  virtual AsyncOpKernel* AsAsync() { return nullptr; }
  // Cheap kernels run inline on the thread that made them ready; expensive ones are scheduled
  // on the inter-op pool (TensorFlow's heuristic).
  virtual bool IsExpensive() const { return true; }
  const std::string& name() const { return def_.name; }
  const std::string& type_string() const { return def_.op; }
  const NodeDef& def() const { return def_; }
  int num_inputs() const { return static_cast<int>(input_types_.size()); }
  int num_outputs() const { return static_cast<int>(output_types_.size()); }
  DataType input_type(int i) const { return input_types_[i]; }
  DataType output_type(int i) const { return output_types_[i]; }
  // TensorFlow's memory types: whether input i / output i lives in host memory on this kernel's
  // device (KernelDefBuilder::HostMemory). Always false for kernels without HostMemory args; on a
  // device whose memory is host memory (CPU) the distinction has no effect.
  bool input_on_host(int i) const { return !host_inputs_.empty() && host_inputs_[i]; }
  bool output_on_host(int i) const { return !host_outputs_.empty() && host_outputs_[i]; }
  bool has_host_memory_args() const { return !host_inputs_.empty() || !host_outputs_.empty(); }

 private:
  NodeDef def_;
  std::vector<DataType> input_types_, output_types_;
  std::vector<bool> host_inputs_, host_outputs_;  // empty: none
};

class AsyncOpKernel : public OpKernel {
 public:
  using OpKernel::OpKernel;
  using DoneCallback = std::function<void()>;
  virtual void ComputeAsync(OpKernelContext* ctx, DoneCallback done) = 0;
  AsyncOpKernel* AsAsync() override { return this; }
  // Runs ComputeAsync and blocks until done (for callers that need synchronous behaviour).
  void Compute(OpKernelContext* ctx) override;
};

class OpKernelContext {
 public:
  struct Params {
    int64_t step_id = 0;
    Device* device = nullptr;
    OpKernel* kernel = nullptr;
    const std::vector<TensorValue>* inputs = nullptr;
    // Per input, whether it is dead (control flow); read by kernels that handle dead inputs
    // (Merge). Owned by the executor; may be null (no input dead).
    const std::vector<bool>* input_is_dead = nullptr;
    FrameAndIter frame_iter;
    Rendezvous* rendezvous = nullptr;
    CallFrame* call_frame = nullptr;  // the Session's feeds and fetches
    std::function<void(std::function<void()>)>* runner = nullptr;
    bool is_input_dead = false;  // any input dead (control flow)
    // The step's cancellation (RunOptions::timeout_in_ms); null when the step cannot be
    // cancelled. Kernels that wait register a callback that withdraws their request.
    CancellationManager* cancellation_manager = nullptr;
  };
  explicit OpKernelContext(Params* params);

  int num_inputs() const { return static_cast<int>(params_->inputs->size()); }
  int num_outputs() const { return static_cast<int>(outputs_.size()); }
  // The value of input i (for a reference input, a snapshot of the variable's tensor).
  const Tensor& input(int i) const;
  // The Variable behind Ref input i; nullptr if input i is not a reference.
  Var* input_ref(int i) const { return (*params_->inputs)[i].ref; }
  DataType input_dtype(int i) const { return params_->kernel->input_type(i); }
  DataType expected_output_dtype(int i) const { return params_->kernel->output_type(i); }

  // Allocates output i from output_allocator(i). Fails with ResourceExhausted.
  Status allocate_output(int i, const TensorShape& shape, Tensor** out);
  // The allocator of output i: host memory (the CPU allocator) for a HostMemory output on a
  // device with its own memory (GPU), else the device's allocator.
  Allocator* output_allocator(int i) const;
  // Host memory for the kernel's host-side temporaries: the device's allocator when its memory is
  // host memory, else the process's CPU allocator.
  Allocator* host_allocator() const;
  Status allocate_temp(DataType dt, const TensorShape& shape, Tensor* out);
  void set_output(int i, const Tensor& t);
  void set_output_ref(int i, Var* var);
  // Forwards input `in` to output `out` without copying.
  void forward_input(int in, int out);
  const TensorValue& output_value(int i) const { return outputs_[i]; }
  std::vector<TensorValue>* mutable_outputs() { return &outputs_; }

  void SetStatus(const Status& s) { if (status_.ok() && !s.ok()) status_ = s; }
  void CtxFailure(const Status& s) { SetStatus(s); }
  const Status& status() const { return status_; }

  Device* device() const { return params_->device; }
  Allocator* allocator() const { return params_->device->GetAllocator(); }
  ThreadPool* intra_op_pool() const { return params_->device->intra_op_pool(); }
  ResourceMgr* resource_manager() const { return params_->device->resource_manager(); }
  int64_t step_id() const { return params_->step_id; }
  const FrameAndIter& frame_iter() const { return params_->frame_iter; }
  CancellationManager* cancellation_manager() const { return params_->cancellation_manager; }
  Rendezvous* rendezvous() const { return params_->rendezvous; }
  CallFrame* call_frame() const { return params_->call_frame; }
  OpKernel* op_kernel() const { return params_->kernel; }
  bool is_input_dead() const { return params_->is_input_dead; }
  const Params& params() const { return *params_; }
  // Control flow: Switch and friends mark outputs as dead (whitepaper 4.4).
  void set_output_dead(int i) { dead_outputs_[i] = true; }
  bool output_is_dead(int i) const { return dead_outputs_[i]; }

 private:
  Params* params_;
  std::vector<TensorValue> outputs_;
  std::vector<bool> dead_outputs_;
  Status status_;
};

// Set (bool true) by the partitioner on a _Recv whose consumers read it as a HostMemory input on a
// device with its own memory: the _Recv then outputs the received host tensor as it is instead
// of copying it to the device (TensorFlow's _HostRecv).
inline constexpr const char* kRecvHostMemoryAttr = "_host_memory";

// Kernel registry, keyed by (op, device type) with type constraints on attrs.
using KernelFactory = std::function<std::unique_ptr<OpKernel>(OpKernelConstruction*)>;

class KernelDefBuilder {
 public:
  explicit KernelDefBuilder(const char* op) : op_(op) {}
  KernelDefBuilder& Device(const char* type) { device_ = type; return *this; }
  template <typename T>
  KernelDefBuilder& TypeConstraint(const char* attr) {
    constraints_.push_back({attr, DataTypeToEnum<T>::value});
    return *this;
  }
  KernelDefBuilder& TypeConstraint(const char* attr, DataType dt) {
    constraints_.push_back({attr, dt});
    return *this;
  }
  // Input or output arg `arg` (an OpDef arg name; all tensors of a list arg) lives in host memory
  // on non-CPU devices (TensorFlow's HostMemory: shapes, axes, sizes). The kernel reads such
  // inputs and writes such outputs with the host CPU; the executor copies a device-memory value
  // that feeds a HostMemory input to the host (and a host value that feeds a device-memory
  // input to the device), and the partitioner marks a _Recv that feeds one (kRecvHostMemoryAttr).
  KernelDefBuilder& HostMemory(const char* arg) { host_memory_.push_back(arg); return *this; }
  const std::vector<std::string>& host_memory() const { return host_memory_; }
  const std::string& op() const { return op_; }
  const std::string& device() const { return device_; }
  const std::vector<std::pair<std::string, DataType>>& constraints() const { return constraints_; }

 private:
  std::string op_, device_ = DEVICE_CPU;
  std::vector<std::pair<std::string, DataType>> constraints_;
  std::vector<std::string> host_memory_;
};

class KernelRegistry {
 public:
  static KernelRegistry* Global();
  void Register(const KernelDefBuilder& def, KernelFactory factory);
  // Creates the kernel for `node` on `device`. NotFound names the node, op, device type and the
  // dtypes for which kernels exist.
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(Device* device, const NodeDef& node) const;
  // The kernel registered for `device_type` (which may differ from device's own type), constructed
  // on `device`: a GPU kernel whose arguments are all host memory wraps the CPU kernel this way.
  StatusOr<std::unique_ptr<OpKernel>> CreateKernel(const std::string& device_type, Device* device,
                                                   const NodeDef& node) const;
  // Whether some kernel for `node` exists on `device_type` (used for feasible-device sets, 4.3).
  bool HasKernel(const std::string& device_type, const NodeDef& node) const;
  // The memory types of the kernel for `node` on `device_type`: per input / output tensor, whether
  // it is HostMemory. All false when no kernel matches or it declares none. Internal naming the
  // op and arg when a HostMemory name is not an arg of the op; InvalidArgument for bad attrs.
  Status MemoryTypesForNode(const std::string& device_type, const NodeDef& node,
                            std::vector<bool>* host_inputs, std::vector<bool>* host_outputs) const;
  // Device types with any kernel for `op`, and the dtypes each kernel was constrained to.
  std::vector<std::string> DeviceTypesForOp(const std::string& op) const;
  std::vector<DataType> TypesForOp(const std::string& op, const std::string& device_type) const;

 private:
  struct Entry {
    KernelDefBuilder def;
    KernelFactory factory;
  };
  const Entry* Find(const std::string& device_type, const NodeDef& node) const;
  std::multimap<std::string, Entry> kernels_;  // keyed by op
};

namespace register_kernel {
struct Registrar {
  Registrar(const KernelDefBuilder& def, KernelFactory f) {
    KernelRegistry::Global()->Register(def, std::move(f));
  }
};
}  // namespace register_kernel

// REGISTER_KERNEL(KernelDefBuilder("MatMul").Device(DEVICE_CPU).TypeConstraint<float>("T"),
//                 MatMulOp<float>);
#define REGISTER_KERNEL(builder, ...)                                                  \
  static ::fb::register_kernel::Registrar FB_CONCAT(fb_kernel_registrar_, __COUNTER__)( \
      ::fb::builder, [](::fb::OpKernelConstruction* c) -> std::unique_ptr<::fb::OpKernel> { \
        return std::make_unique<__VA_ARGS__>(c);                                       \
      })

#define OP_REQUIRES(ctx, cond, status) \
  do {                                 \
    if (!(cond)) {                     \
      (ctx)->CtxFailure(status);       \
      return;                          \
    }                                  \
  } while (0)

#define OP_REQUIRES_OK(ctx, expr)       \
  do {                                  \
    ::fb::Status _fb_s = (expr);        \
    if (!_fb_s.ok()) {                  \
      (ctx)->CtxFailure(_fb_s);         \
      return;                           \
    }                                   \
  } while (0)

#define OP_REQUIRES_ASYNC(ctx, cond, status, done) \
  do {                                             \
    if (!(cond)) {                                 \
      (ctx)->CtxFailure(status);                   \
      (done)();                                    \
      return;                                      \
    }                                              \
  } while (0)

#define OP_REQUIRES_OK_ASYNC(ctx, expr, done) \
  do {                                        \
    ::fb::Status _fb_s = (expr);              \
    if (!_fb_s.ok()) {                        \
      (ctx)->CtxFailure(_fb_s);               \
      (done)();                               \
      return;                                 \
    }                                         \
  } while (0)

}  // namespace fb
