#include "engine/framework/op_kernel.h"

#include <condition_variable>
#include <set>

#include "engine/framework/tensor_allocate.h"

namespace fb {

OpKernelConstruction::OpKernelConstruction(Device* device, const NodeDef& def, const OpDef& op_def,
                                           std::vector<DataType> input_types,
                                           std::vector<DataType> output_types)
    : device_(device),
      def_(def),
      op_def_(op_def),
      input_types_(std::move(input_types)),
      output_types_(std::move(output_types)) {}

OpKernel::OpKernel(OpKernelConstruction* ctx)
    : def_(ctx->def()), input_types_(ctx->input_types()), output_types_(ctx->output_types()) {}

void AsyncOpKernel::Compute(OpKernelContext* ctx) {
  std::mutex mu;
  std::condition_variable cv;
  bool done = false;
  ComputeAsync(ctx, [&]() {
    std::lock_guard<std::mutex> l(mu);
    done = true;
    cv.notify_all();
  });
  std::unique_lock<std::mutex> l(mu);
  cv.wait(l, [&] { return done; });
}

OpKernelContext::OpKernelContext(Params* params) : params_(params) {
  int n = params->kernel->num_outputs();
  outputs_.resize(n);
  dead_outputs_.assign(n, false);
}

const Tensor& OpKernelContext::input(int i) const {
  const TensorValue& v = (*params_->inputs)[i];
  return v.tensor;
}

Status OpKernelContext::allocate_output(int i, const TensorShape& shape, Tensor** out) {
  FB_CHECK(i >= 0 && i < num_outputs()) << "allocate_output " << i;
  if (!shape.IsFullyDefined())
    return InvalidArgument("output ", i, " shape ", shape.DebugString(), " is not fully defined");
  // Out of memory is ResourceExhausted naming the node (GPU memory runs out in practice).
  auto t = AllocateTensor(expected_output_dtype(i), shape, allocator());
  if (!t.ok())
    return t.status().WithPrefix("output " + std::to_string(i) + " of node '" +
                                 params_->kernel->name() + "': ");
  outputs_[i].tensor = std::move(*t);
  *out = &outputs_[i].tensor;
  return Status::OK();
}

Status OpKernelContext::allocate_temp(DataType dt, const TensorShape& shape, Tensor* out) {
  auto t = AllocateTensor(dt, shape, allocator());
  if (!t.ok())
    return t.status().WithPrefix("temporary of node '" +
                                 (params_->kernel ? params_->kernel->name() : "?") + "': ");
  *out = std::move(*t);
  return Status::OK();
}

void OpKernelContext::set_output(int i, const Tensor& t) {
  FB_CHECK(i >= 0 && i < num_outputs()) << "set_output " << i;
  outputs_[i].tensor = t;
  outputs_[i].ref = nullptr;
}

void OpKernelContext::set_output_ref(int i, Var* var) {
  FB_CHECK(i >= 0 && i < num_outputs()) << "set_output_ref " << i;
  outputs_[i].ref = var;
}

void OpKernelContext::forward_input(int in, int out) { outputs_[out].tensor = input(in); }

KernelRegistry* KernelRegistry::Global() {
  static KernelRegistry* r = new KernelRegistry;
  return r;
}

void KernelRegistry::Register(const KernelDefBuilder& def, KernelFactory factory) {
  kernels_.emplace(def.op(), Entry{def, std::move(factory)});
}

const KernelRegistry::Entry* KernelRegistry::Find(const std::string& device_type,
                                                  const NodeDef& node) const {
  auto range = kernels_.equal_range(node.op);
  for (auto it = range.first; it != range.second; ++it) {
    const Entry& e = it->second;
    if (e.def.device() != device_type) continue;
    bool match = true;
    for (const auto& [attr, dt] : e.def.constraints()) {
      auto a = node.attrs.find(attr);
      if (a == node.attrs.end() || !a->second.holds<DataType>() || a->second.get<DataType>() != dt) {
        match = false;
        break;
      }
    }
    if (match) return &e;
  }
  return nullptr;
}

bool KernelRegistry::HasKernel(const std::string& device_type, const NodeDef& node) const {
  return Find(device_type, node) != nullptr;
}

StatusOr<std::unique_ptr<OpKernel>> KernelRegistry::CreateKernel(Device* device,
                                                                 const NodeDef& node) const {
  ASSIGN_OR_RETURN(const OpDef* op, OpRegistry::Global()->LookUp(node.op));
  const Entry* e = Find(device->device_type(), node);
  if (!e) {
    std::string types = DataTypeListString(TypesForOp(node.op, device->device_type()));
    return NotFound("no ", device->device_type(), " kernel for node '", node.name, "' (", node.op,
                    ")", types.empty() ? "" : "; kernels exist for ", types);
  }
  std::vector<DataType> in, out;
  RETURN_IF_ERROR(InOutTypesForNode(*op, node.name, node.attrs, &in, &out));
  OpKernelConstruction ctx(device, node, *op, in, out);
  std::unique_ptr<OpKernel> kernel = e->factory(&ctx);
  if (!ctx.status().ok())
    return ctx.status().WithPrefix(node.op + " '" + node.name + "': ");
  return kernel;
}

std::vector<std::string> KernelRegistry::DeviceTypesForOp(const std::string& op) const {
  std::set<std::string> types;
  auto range = kernels_.equal_range(op);
  for (auto it = range.first; it != range.second; ++it) types.insert(it->second.def.device());
  return {types.begin(), types.end()};
}

std::vector<DataType> KernelRegistry::TypesForOp(const std::string& op,
                                                 const std::string& device_type) const {
  std::set<DataType> types;
  auto range = kernels_.equal_range(op);
  for (auto it = range.first; it != range.second; ++it) {
    if (it->second.def.device() != device_type) continue;
    for (const auto& [attr, dt] : it->second.def.constraints()) types.insert(dt);
  }
  return {types.begin(), types.end()};
}

}  // namespace fb
